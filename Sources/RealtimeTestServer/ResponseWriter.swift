import RealtimeCore

/// Writes one HTTP response on a test-server connection, with the fault knobs the
/// built-in endpoints use (cut after N body bytes, drip, stall), for custom handlers.
///
/// A handler runs on the connection's own thread and may block (sleep, hold).
/// When it returns, the server finishes the body (terminating chunk) and closes the
/// connection cleanly unless the handler already cut or aborted it.
/// Every method throws ``Interrupted`` once the connection is gone (cut, client
/// closed, server stopped): let it propagate out of the handler.
package final class ResponseWriter {
    /// How the response body is delimited (RFC 9112 §6).
    package enum Framing: Sendable, Hashable {
        /// `Transfer-Encoding: chunked`; each ``write(_:)-([UInt8])`` is one chunk.
        case chunked
        /// `Content-Length: n`.
        case contentLength(Int)
        /// No length: the body ends when the server closes the connection.
        case closeDelimited
        /// No body at all (101, 204, 304).
        case none
    }

    /// The connection is gone: cut on purpose, closed by the client, or the server stopped.
    package struct Interrupted: Error, Sendable {}

    /// The request being answered (already recorded in ``TestServer/requests``).
    package let request: RecordedRequest
    /// Cut the connection after this many body bytes (nil = never). Chunk framing
    /// is not counted: a cut inside a chunk leaves the chunk incomplete.
    package var cutAfterBodyBytes: Int?
    /// Cut with a TCP RST instead of a FIN (and without a TLS close_notify either way).
    package var cutWithReset = false
    /// When set, body bytes are written one per write (one chunk each), pausing this many
    /// milliseconds between them (0 = no pause, but still one segment per byte).
    package var dripDelayMilliseconds: Int?
    /// Compresses every body write from now on (set it, and the `Content-Encoding` header,
    /// before the first); the compressed stream is ended by ``finish()``. Cuts, drips and
    /// ``bodyBytesWritten`` then count compressed bytes, as they travel.
    package var contentEncoder: ContentEncoder?
    /// Body bytes written so far (excluding chunk framing).
    package private(set) var bodyBytesWritten = 0
    /// Whether the head was written.
    package private(set) var headWritten = false
    /// How the body is framed (none until the head is written).
    package private(set) var framing: Framing = .none

    let connection: ServerConnection
    private var finished = false
    private let onCut: @Sendable () -> Void

    init(request: RecordedRequest, connection: ServerConnection, onCut: @escaping @Sendable () -> Void) {
        self.request = request
        self.connection = connection
        self.onCut = onCut
    }

    /// Writes the status line and headers. Adds the framing header and `Connection: close`
    /// (the server serves one request per connection), unless `headers` already has them.
    package func writeHead(status: Int, reason: String? = nil, headers: HTTPHeaders = HTTPHeaders(), framing: Framing)
        throws
    {
        var head = "HTTP/1.1 \(status) \(reason ?? Self.reasonPhrase(status))\r\n"
        var headers = headers
        switch framing {
        case .chunked: headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        case .contentLength(let length): headers.replaceOrAdd(name: "Content-Length", value: String(length))
        case .closeDelimited, .none: break
        }
        if status != 101, !headers.contains("Connection") { headers.add(name: "Connection", value: "close") }
        for field in headers.fields { head += "\(field.name): \(field.value)\r\n" }
        head += "\r\n"
        try guarded { try connection.write(head) }
        headWritten = true
        self.framing = framing
    }

    /// Writes `head` byte for byte, for the heads ``writeHead(status:reason:headers:framing:)``
    /// will not produce (interim 1xx responses before the final one, an HTTP/1.0 status line,
    /// a malformed field); later body writes use `framing`. `head` must end with the blank line.
    package func writeRawHead(_ head: String, framing: Framing) throws {
        try guarded { try connection.write(head) }
        headWritten = true
        self.framing = framing
    }

    /// Writes body bytes with the response's framing, honouring the cut and drip settings.
    package func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let bytes = contentEncoder?.encode(bytes) ?? bytes
        if let delay = dripDelayMilliseconds {
            for (index, byte) in bytes.enumerated() {
                if index > 0 || bodyBytesWritten > 0 { try sleep(milliseconds: delay) }
                try writeBody([byte])
            }
        } else {
            try writeBody(bytes)
        }
    }

    /// Writes `text` as UTF-8 body bytes.
    package func write(_ text: String) throws { try write(Array(text.utf8)) }

    /// Writes bytes to the connection as they are: no framing, no cut, no drip.
    package func writeRaw(_ bytes: [UInt8]) throws {
        try guarded { try connection.write(bytes) }
    }

    /// Writes bytes straight to the socket, beneath TLS on a TLS connection: a record the
    /// client cannot decrypt, as a corrupting middlebox or a confused server would send.
    package func writeBeneathTLS(_ bytes: [UInt8]) throws {
        try guarded { try connection.writeBeneathTLS(bytes) }
    }

    /// Ends the body (the terminating chunk for chunked framing) and closes cleanly.
    package func finish() throws {
        guard !finished else { return }
        if let encoder = contentEncoder, !connection.isClosed {
            contentEncoder = nil
            try writeBody(encoder.finish())
        }
        finished = true
        if case .chunked = framing, !connection.isClosed { try guarded { try connection.write("0\r\n\r\n") } }
        connection.close()
    }

    /// Pauses; throws ``Interrupted`` early when the client hangs up or the server stops.
    package func sleep(milliseconds: Int) throws {
        guard connection.sleep(milliseconds: milliseconds) else { throw Interrupted() }
    }

    /// Sends nothing more and waits until the client closes or the server stops (a stall).
    package func hold() throws -> Never {
        connection.holdUntilClosed()
        throw Interrupted()
    }

    /// Reads nothing more until the client hangs up or the server stops, then ends the
    /// handler (the client's writes stall: its peer does not read).
    package func holdWithoutReading() throws -> Never {
        connection.holdWithoutReading()
        throw Interrupted()
    }

    /// Drops the connection now without finishing the body.
    package func abort(reset: Bool = false) {
        finished = true
        connection.abort(reset: reset)
    }

    /// Reads raw bytes the client sends after the request (WebSocket frames); 0 at end of stream.
    package func read(into buffer: inout [UInt8]) throws -> Int {
        try guarded { try buffer.withUnsafeMutableBytes { try connection.read(into: $0) } }
    }

    private func writeBody(_ bytes: [UInt8]) throws {
        var slice = bytes[...]
        var cutNow = false
        if let limit = cutAfterBodyBytes, bodyBytesWritten + bytes.count >= limit {
            slice = slice.prefix(max(0, limit - bodyBytesWritten))
            cutNow = true
        }
        if case .chunked = framing, !(cutNow && slice.isEmpty) {
            // A cut inside a chunk announces the chunk's full size and then stops early.
            try guarded { try connection.write(String(bytes.count, radix: 16) + "\r\n") }
        }
        if !slice.isEmpty { try guarded { try connection.write(Array(slice)) } }
        bodyBytesWritten += slice.count
        if cutNow {
            finished = true
            onCut()
            connection.abort(reset: cutWithReset)
            throw Interrupted()
        }
        if case .chunked = framing { try guarded { try connection.write("\r\n") } }
    }

    private func guarded<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw Interrupted() }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

@available(*, unavailable)
extension ResponseWriter: Sendable {}
