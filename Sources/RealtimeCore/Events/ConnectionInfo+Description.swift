#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Short, readable and secret-free descriptions for `print`, logs and debuggers: no header
// value, no request body, no URL credentials or query, durations to the millisecond.

extension ConnectionInfo: CustomStringConvertible {
    /// `websocket ws://host:8080/chat?… (101, attempt 3, 2nd of this outage, subprotocol
    /// chat.v2, permessage-deflate)`: the transport, the URL without credentials, query or
    /// fragment (`?…` marks a query: it may carry a token), then status, HTTP version,
    /// attempt numbers and what a WebSocket negotiated. Never a header.
    public var description: String {
        var details: [String] = []
        if let status { details.append("\(status)") }
        if let httpVersion { details.append("HTTP/\(httpVersion)") }
        details.append("attempt \(attempt)")
        if attemptInOutage > 1 { details.append("\(attemptInOutage) attempts this outage") }
        if let subprotocol { details.append("subprotocol \(subprotocol)") }
        details += extensions.map { String($0.prefix { $0 != ";" }) }
        return "\(transport.rawValue) \(Self.shown(url)) (\(details.joined(separator: ", ")))"
    }

    /// `scheme://host[:port]/path`, `?…` when a query was there.
    static func shown(_ url: URL) -> String {
        guard let scheme = url.scheme, let host = url.host else { return URLRedaction.redacted(url.absoluteString) }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        var s = "\(scheme)://\(bracketed)"
        if let port = url.port { s += ":\(port)" }
        s += url.path
        if url.query != nil { s += "?…" }
        return URLRedaction.redacted(s)
    }
}
