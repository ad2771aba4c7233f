#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP proxy reached with `CONNECT` (RFC 9110 §9.3.6): where it is, the
/// `Proxy-Authorization` to send, the request that opens a tunnel and how to read the answer.
/// Sans-I/O; the byte stream performs the exchange.
///
/// ``description`` never shows the credentials.
package struct HTTPProxy: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's host name or IP literal (without brackets).
    package var host: String
    /// The proxy's port; 1080 when the URL has none (libcurl's default proxy port).
    package var port: Int
    /// `Basic <base64(user:password)>` (RFC 7617) from the URL's userinfo, percent-decoded;
    /// nil without userinfo. A secret: never logged.
    package var authorization: String?

    /// The default port of a proxy URL without one, as in libcurl.
    package static let defaultPort = 1080

    package init(host: String, port: Int = HTTPProxy.defaultPort, authorization: String? = nil) {
        self.host = host
        self.port = port
        self.authorization = authorization
    }

    /// Parses a proxy URL: `http://[user[:password]@]host[:port][/]`, or `host[:port]`
    /// (taken as `http`, as libcurl does). Any other scheme (`https`, `socks5`…) is an
    /// `invalidConfiguration` error: only plain-HTTP proxies speak `CONNECT` here.
    package init(url text: String) throws(RealtimeError) {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased() else {
            throw RealtimeError(.invalidConfiguration, detail: "the proxy URL does not parse")
        }
        guard scheme == "http" else {
            throw RealtimeError(.invalidConfiguration, detail: "proxy scheme \(scheme) is not supported for WebSocket (http only)")
        }
        guard var host = url.host(percentEncoded: false), !host.isEmpty else {
            throw RealtimeError(.invalidConfiguration, detail: "the proxy URL has no host")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? Self.defaultPort
        guard (1...65535).contains(port) else {
            throw RealtimeError(.invalidConfiguration, detail: "proxy port \(port) out of range")
        }
        var authorization: String?
        if let user = url.user(percentEncoded: false) {
            let password = url.password(percentEncoded: false) ?? ""
            authorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
        self.init(host: host, port: port, authorization: authorization)
    }

    package var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "http://\(h):\(port)" + (authorization == nil ? "" : " (with credentials)")
    }

    /// The `CONNECT` request for a tunnel to `host:port` (authority-form, RFC 9112 §3.2.3):
    /// `Host` repeats the authority; `Proxy-Authorization` when the URL had credentials.
    package func connectRequest(host: String, port: Int) -> [UInt8] {
        let authority = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        var text = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let authorization { text += "Proxy-Authorization: \(authorization)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The error for the proxy's answer to `CONNECT`; nil for 2xx, the tunnel is open
    /// (RFC 9110 §9.3.6). Anything else is a ``RealtimeError/Code/proxy`` error with the
    /// status (407 names the challenge's scheme, never a credential).
    package static func tunnelError(for head: HTTPResponseHead) -> RealtimeError? {
        if (200..<300).contains(head.status) { return nil }
        let scheme = head.headers["Proxy-Authenticate"]?.split(separator: " ").first
            .map { String($0.prefix(32).filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) }
        return tunnelRefusal(status: head.status, challenge: scheme)
    }

    /// The ``RealtimeError/Code/proxy`` error for a `CONNECT` answered with `status` (also
    /// what the SSE transport reports from libcurl's `CURLINFO_HTTP_CONNECTCODE`); `challenge`
    /// is the 407's authentication scheme, never a credential.
    package static func tunnelRefusal(status: Int, challenge: String? = nil) -> RealtimeError {
        var detail = "the proxy answered CONNECT with \(status)"
        if status == 407 {
            detail += challenge.map { " (it asks for \($0) credentials)" } ?? " (proxy authentication required)"
        }
        return RealtimeError(.proxy, detail: detail, status: status)
    }
}
