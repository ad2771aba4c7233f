@_spi(Transport) import RealtimeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checks a request before any I/O: a bad scheme, method, header or proxy fails the attempt
/// with a clear error instead of reaching the wire (CR/LF in a header would allow injection;
/// a proxy scheme libcurl cannot use would otherwise fail every attempt as a network error).
enum SSERequestValidation {
    /// The most bytes of header fields (names, values, `: ` and CRLF, `Last-Event-ID`
    /// included) a request may carry. libcurl refuses to build a request head above 1 MiB
    /// ("out of memory"), and servers answer 431 far below this (8–64 KiB is usual).
    static let maxHeaderBytes = 256 * 1024

    /// Proxy schemes the transport's libcurl speaks (`CURLPROTO` proxies of a 7.88 build with
    /// HTTPS-proxy support); a proxy URL without a scheme is `http`, as in libcurl.
    static let proxySchemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    static func problem(
        in request: TransportRequest, proxy: ProxyConfiguration = .none,
        environment: @autoclosure () -> [String: String] = [:]
    ) -> RealtimeError? {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            return RealtimeError(.unsupportedScheme, detail: "SSE needs http or https, got \(scheme.isEmpty ? "none" : scheme)")
        }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(isTokenByte) else {
            return RealtimeError(.invalidConfiguration, detail: "invalid HTTP method")
        }
        if let problem = headerProblem(in: request) { return problem }
        return proxyProblem(proxy, scheme: scheme, host: request.url.host ?? "", environment: environment())
    }

    private static func headerProblem(in request: TransportRequest) -> RealtimeError? {
        var bytes = 0
        for field in request.headers.fields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(isTokenByte) else {
                return RealtimeError(.invalidConfiguration, detail: "invalid header name")
            }
            // The value is never echoed: it may be a credential.
            guard field.value.utf8.allSatisfy(isFieldValueByte) else {
                return RealtimeError(.invalidConfiguration, detail: "invalid value for header \(field.name)")
            }
            bytes += field.name.utf8.count + field.value.utf8.count + 4
        }
        if let id = request.lastEventID {
            guard id.utf8.allSatisfy(isFieldValueByte) else {
                return RealtimeError(.invalidConfiguration, detail: "invalid Last-Event-ID")
            }
            bytes += "Last-Event-ID: \r\n".utf8.count + id.utf8.count
        }
        guard bytes <= maxHeaderBytes else {
            return RealtimeError(
                .invalidConfiguration, detail: "request header fields of \(bytes) bytes (at most \(maxHeaderBytes))")
        }
        return nil
    }

    /// The proxy the transfer would use (given, or from the environment by libcurl's rules)
    /// must have a scheme libcurl speaks. Only the scheme is quoted: the URL may hold a
    /// password.
    private static func proxyProblem(
        _ proxy: ProxyConfiguration, scheme: String, host: String, environment: @autoclosure () -> [String: String]
    ) -> RealtimeError? {
        guard let text = proxyURL(proxy, scheme: scheme, host: host, environment: environment()) else { return nil }
        let proxyScheme = ProxyConfiguration.scheme(ofProxyURL: text)
        guard proxySchemes.contains(proxyScheme) else {
            return RealtimeError(
                .invalidConfiguration,
                detail: "proxy scheme \(proxyScheme) is not supported (SSE takes \(proxySchemes.sorted().joined(separator: ", ")))")
        }
        return nil
    }

    /// The proxy URL the transfer uses (as written), nil when direct.
    private static func proxyURL(
        _ proxy: ProxyConfiguration, scheme: String, host: String, environment: @autoclosure () -> [String: String]
    ) -> String? {
        let text: String?
        switch proxy {
        case .none: text = nil
        case .url(let url): text = url
        case .environment: text = ProxyEnvironment(environment()).proxy(scheme: scheme, host: host)
        }
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// `host:port` of the proxy a request to `url` goes through (no credentials), nil when
    /// direct; for error messages. The port defaults as in libcurl: 443 for an `https`
    /// proxy, 1080 otherwise.
    static func proxyEndpoint(_ proxy: ProxyConfiguration, url: URL, environment: [String: String]) -> String? {
        let scheme = url.scheme?.lowercased() ?? ""
        guard let text = proxyURL(proxy, scheme: scheme, host: url.host ?? "", environment: environment) else { return nil }
        let proxyScheme = ProxyConfiguration.scheme(ofProxyURL: text)
        guard let parsed = URL(string: text.contains("://") ? text : "http://" + text),
            let host = parsed.host(percentEncoded: false), !host.isEmpty
        else { return "the configured one" }
        let port = parsed.port ?? (proxyScheme == "https" ? 443 : 1080)
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return bare.contains(":") ? "[\(bare)]:\(port)" : "\(bare):\(port)"
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }

    /// RFC 9110 §5.5: no CR, LF or NUL (other controls except HTAB are refused too).
    private static func isFieldValueByte(_ b: UInt8) -> Bool {
        b == 0x09 || (b >= 0x20 && b != 0x7F)
    }
}
