#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import RealtimeCore

/// Where a WebSocket URL points: host, port, TLS or not, and the request target
/// (RFC 6455 §3: `ws`/`wss` URIs; the default ports are 80 and 443).
struct WebSocketTarget: Sendable, Hashable {
    var secure: Bool
    /// Host without IPv6 brackets (what DNS and TLS want).
    var host: String
    var port: Int
    /// Path and query, `/` when the URL has no path (RFC 6455 §3, "resource name").
    var resource: String
    /// The `Host` header value (RFC 9110 §7.2): brackets for IPv6, port when not default.
    var hostHeader: String

    init(url: URL) throws(RealtimeError) {
        guard let scheme = url.scheme?.lowercased() else {
            throw RealtimeError(.unsupportedScheme, detail: "URL has no scheme")
        }
        switch scheme {
        case "ws", "http": secure = false
        case "wss", "https": secure = true
        default: throw RealtimeError(.unsupportedScheme, detail: "scheme \(scheme) is not ws or wss")
        }
        guard var host = url.host, !host.isEmpty else {
            throw RealtimeError(.invalidConfiguration, detail: "URL has no host")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        self.host = host
        let defaultPort = secure ? 443 : 80
        port = url.port ?? defaultPort
        guard (1...65535).contains(port) else {
            throw RealtimeError(.invalidConfiguration, detail: "port \(port) out of range")
        }
        var resource = url.path(percentEncoded: true)
        if resource.isEmpty { resource = "/" }
        if let query = url.query(percentEncoded: true) { resource += "?" + query }
        self.resource = resource
        let bracketed = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }
}
