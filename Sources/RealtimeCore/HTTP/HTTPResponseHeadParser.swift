/// An incremental parser for an HTTP/1.1 response head: feed bytes until it returns the head
/// and the bytes after it (which, after a WebSocket upgrade, may already hold frames).
///
/// Lines end in CRLF (a bare LF is tolerated, RFC 9112 §2.2). Obsolete line folding and
/// malformed lines are errors. The head is bounded by ``maxSize`` so a hostile server cannot make
/// the client buffer without limit; searches for the blank line resume where the last call
/// stopped, so a head delivered byte by byte costs linear time.
package struct HTTPResponseHeadParser: Sendable {
    /// The default ``maxSize``: 16 KiB, far beyond any real upgrade response.
    package static let defaultMaxSize = 16 * 1024

    package var maxSize: Int
    private var buffer: [UInt8] = []
    private var scanned = 0

    package init(maxSize: Int = HTTPResponseHeadParser.defaultMaxSize) {
        self.maxSize = maxSize
    }

    /// Adds `bytes`; returns the head and the leftover bytes once the blank line has arrived,
    /// nil while more is needed. Throws `handshake` errors for malformed or oversized heads.
    package mutating func parse(_ bytes: some Collection<UInt8>) throws(RealtimeError) -> (head: HTTPResponseHead, rest: [UInt8])? {
        buffer.append(contentsOf: bytes)
        var i = max(0, scanned - 3)
        var end: Int?
        while i < buffer.count {
            if buffer[i] == 0x0A {
                // LF LF or LF CR LF closes the head.
                if i + 1 < buffer.count && buffer[i + 1] == 0x0A { end = i + 2; break }
                if i + 2 < buffer.count && buffer[i + 1] == 0x0D && buffer[i + 2] == 0x0A { end = i + 3; break }
            }
            i += 1
        }
        guard let end else {
            scanned = buffer.count
            if buffer.count > maxSize {
                throw RealtimeError(.handshake, detail: "response head larger than \(maxSize) bytes")
            }
            return nil
        }
        guard end <= maxSize else { throw RealtimeError(.handshake, detail: "response head larger than \(maxSize) bytes") }
        let head = try Self.parseHead(buffer[..<end])
        let rest = Array(buffer[end...])
        buffer = []
        scanned = 0
        return (head, rest)
    }

    private static let malformed = RealtimeError(.handshake, detail: "malformed HTTP response head")

    static func parseHead(_ bytes: ArraySlice<UInt8>) throws(RealtimeError) -> HTTPResponseHead {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        for i in bytes.indices where bytes[i] == 0x0A {
            var line = bytes[start..<i]
            if line.last == 0x0D { line = line.dropLast() }
            lines.append(line)
            start = i + 1
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first else { throw malformed }
        // HTTP-version SP 3DIGIT SP [reason]
        let parts = statusLine.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].starts(with: "HTTP/1.".utf8), parts[1].count == 3,
              parts[1].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let status = Int(String(decoding: parts[1], as: UTF8.self))
        else { throw malformed }
        var head = HTTPResponseHead(
            version: String(decoding: parts[0], as: UTF8.self), status: status,
            reason: parts.count > 2 ? String(decoding: parts[2], as: UTF8.self) : "")
        for line in lines.dropFirst() {
            guard let first = line.first, first != 0x20, first != 0x09 else {
                throw RealtimeError(.handshake, detail: "obsolete header line folding (RFC 9112 §5.2)")
            }
            guard let colon = line.firstIndex(of: 0x3A) else { throw malformed }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            guard WebSocketExtension.isToken(name) else { throw malformed }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
            head.headers.add(name: name, value: value)
        }
        return head
    }
}
