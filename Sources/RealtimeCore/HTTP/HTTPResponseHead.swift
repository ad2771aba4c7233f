/// The status line and header fields of an HTTP/1.1 response (RFC 9112 §4, §5).
package struct HTTPResponseHead: Sendable, Hashable {
    /// e.g. `HTTP/1.1`.
    package var version: String
    package var status: Int
    package var reason: String
    package var headers: HTTPHeaders

    package init(version: String = "HTTP/1.1", status: Int, reason: String = "", headers: HTTPHeaders = HTTPHeaders()) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// How the body that follows this head is delimited (RFC 9112 §6.3), for a caller that needs
    /// to read it (e.g. to quote a refused handshake's error body).
    package enum BodyFraming: Sendable, Hashable {
        /// No body (1xx, 204, 304).
        case none
        /// Exactly this many bytes.
        case contentLength(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Until the server closes the connection.
        case untilClose
    }

    package var bodyFraming: BodyFraming {
        if (100..<200).contains(status) || status == 204 || status == 304 { return .none }
        if let te = headers["Transfer-Encoding"], te.lowercased().contains("chunked") { return .chunked }
        if let cl = headers["Content-Length"], let n = Int(cl.trimmingSpaces), n >= 0 { return .contentLength(n) }
        return .untilClose
    }
}

extension String {
    var trimmingSpaces: String { WebSocketExtension.trim(self) }
}
