import RealtimeCore

/// Reads one HTTP/1.1 request (head and body) from a ``ServerConnection``.
///
/// Deliberately small: request line, header fields, and a body framed by
/// `Content-Length` or `Transfer-Encoding: chunked` (RFC 9112 §6–7). Bounded so a
/// broken client cannot make the server grow without limit.
struct HTTPRequestReader {
    struct Malformed: Error {}

    /// Largest accepted request head, bytes.
    static let maximumHeadSize = 64 * 1024
    /// Largest accepted request body, bytes.
    static let maximumBodySize = 16 * 1024 * 1024

    struct Head {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
    }

    let connection: ServerConnection
    private var buffer: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    init(connection: ServerConnection) {
        self.connection = connection
    }

    /// Returns nil when the client closed before sending anything.
    mutating func readRequest() throws -> (Head, [UInt8])? {
        guard let head = try readHead() else { return nil }
        // libcurl asks before sending a larger POST body and would otherwise wait 1 s
        // for this interim answer (RFC 9110 §10.1.1).
        if head.headers["Expect"]?.lowercased() == "100-continue" {
            try connection.write("HTTP/1.1 100 Continue\r\n\r\n")
        }
        var body: [UInt8] = []
        if let encoding = head.headers["Transfer-Encoding"], encoding.lowercased().contains("chunked") {
            body = try readChunkedBody()
        } else if let lengthText = head.headers["Content-Length"] {
            guard let length = Int(lengthText.trimmingASCIISpaces), length >= 0, length <= Self.maximumBodySize
            else { throw Malformed() }
            body = try readExactly(length)
        }
        // Anything read past the request (a WebSocket client's first frame) goes back to the connection.
        if !buffer.isEmpty {
            connection.unread(buffer[...])
            buffer.removeAll()
        }
        return (head, body)
    }

    private mutating func fill() throws -> Bool {
        let n = try scratch.withUnsafeMutableBytes { try connection.read(into: $0) }
        if n == 0 { return false }
        buffer.append(contentsOf: scratch[0..<n])
        return true
    }

    private mutating func readHead() throws -> Head? {
        var searchFrom = 0
        while true {
            if let end = Self.find([13, 10, 13, 10], in: buffer, from: searchFrom) {
                let headBytes = buffer[0..<end]
                buffer.removeFirst(end + 4)
                return try Self.parseHead(headBytes)
            }
            searchFrom = max(0, buffer.count - 3)
            guard buffer.count <= Self.maximumHeadSize else { throw Malformed() }
            guard try fill() else {
                if buffer.isEmpty { return nil }
                throw Malformed()
            }
        }
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws -> Head {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        guard let requestLine = lines.popFirst() else { throw Malformed() }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3 else { throw Malformed() }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw Malformed() }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]).trimmingASCIISpaces)
        }
        return Head(method: String(parts[0]), target: String(parts[1]), version: String(parts[2]), headers: headers)
    }

    private mutating func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw Malformed() }
        }
        let result = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return result
    }

    private mutating func readLine() throws -> String {
        while true {
            if let end = Self.find([13, 10], in: buffer, from: 0) {
                let line = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                return line
            }
            guard buffer.count <= Self.maximumHeadSize, try fill() else { throw Malformed() }
        }
    }

    private mutating func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try readLine()
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingASCIISpaces, radix: 16), size >= 0,
                  body.count + size <= Self.maximumBodySize else { throw Malformed() }
            if size == 0 {
                // Trailer fields, then the empty line.
                while try !readLine().isEmpty {}
                return body
            }
            body += try readExactly(size)
            guard try readExactly(2) == [13, 10] else { throw Malformed() }
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var i = start
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0] {
                var match = true
                for j in 1..<needle.count where haystack[i + j] != needle[j] {
                    match = false
                    break
                }
                if match { return i }
            }
            i += 1
        }
        return nil
    }

    /// Splits a request target into a decoded path, the raw query and decoded parameters.
    static func splitTarget(_ target: String) -> (path: String, rawQuery: String, query: [String: String]) {
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = percentDecode(String(pieces[0]), plusIsSpace: false)
        let rawQuery = pieces.count > 1 ? String(pieces[1]) : ""
        var query: [String: String] = [:]
        for pair in rawQuery.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecode(String(kv[0]), plusIsSpace: true)
            query[name] = kv.count > 1 ? percentDecode(String(kv[1]), plusIsSpace: true) : ""
        }
        return (path, rawQuery, query)
    }

    static func percentDecode(_ text: String, plusIsSpace: Bool) -> String {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.count,
               let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) {
                out.append(high << 4 | low)
                i += 3
                continue
            }
            out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
