import Foundation
import RealtimeTestServer
#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP client over a raw socket, for testing the test server's
/// wire behaviour (exact bytes, framing, cuts, resets) without any library in between, and
/// for reading a loopback peer's records (``LoopbackHTTP``). Every read has a timeout (5 s
/// unless told) so a broken server fails a test instead of hanging it.
public final class TestServerRawClient {
    public enum End: Equatable, Sendable {
        case eof, reset, timeout
    }

    public struct Response: Sendable {
        public var bytes: [UInt8]
        public var end: End

        public init(bytes: [UInt8], end: End) {
            self.bytes = bytes
            self.end = end
        }

        public var head: String {
            guard let range = find([13, 10, 13, 10]) else { return "" }
            return String(decoding: bytes[..<range], as: UTF8.self)
        }
        public var statusCode: Int? {
            head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        public func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
        /// The raw body bytes after the head (still chunk-framed if chunked).
        public var rawBody: [UInt8] {
            guard let range = find([13, 10, 13, 10]) else { return [] }
            return Array(bytes[(range + 4)...])
        }
        /// The body with chunk framing removed (a truncated last chunk keeps its received bytes).
        public var body: [UInt8] {
            guard header("Transfer-Encoding")?.lowercased() == "chunked" else { return rawBody }
            return Self.dechunk(rawBody).body
        }
        /// The sizes of the chunks, in order (for chunked responses).
        public var chunkSizes: [Int] { Self.dechunk(rawBody).sizes }
        /// Whether the chunked body ended with its terminating zero-size chunk.
        public var chunkedComplete: Bool { Self.dechunk(rawBody).complete }

        public func find(_ needle: [UInt8]) -> Int? {
            guard bytes.count >= needle.count else { return nil }
            for i in 0...(bytes.count - needle.count) where Array(bytes[i..<i + needle.count]) == needle {
                return i
            }
            return nil
        }

        public static func dechunk(_ raw: [UInt8]) -> (body: [UInt8], sizes: [Int], complete: Bool) {
            var body: [UInt8] = []
            var sizes: [Int] = []
            var i = 0
            while i < raw.count {
                guard let lineEnd = (i..<raw.count - 1).first(where: { raw[$0] == 13 && raw[$0 + 1] == 10 }),
                      let size = Int(String(decoding: raw[i..<lineEnd], as: UTF8.self), radix: 16)
                else { break }
                if size == 0 { return (body, sizes, true) }
                sizes.append(size)
                let start = lineEnd + 2
                let end = min(raw.count, start + size)
                body += raw[start..<end]
                i = end + 2
            }
            return (body, sizes, false)
        }
    }

    public let fd: Int32

    /// A connect that failed or did not complete within the timeout, with the kernel's
    /// sockets on the port at that moment (whether the listener was there, and its backlog).
    public struct ConnectFailed: Error, CustomStringConvertible {
        public var errno: Int32
        public var sockets: String
        public var description: String { "connect failed (\(String(cString: strerror(errno)))); the sockets on the port:\n\(sockets)" }
    }

    /// Connects to the loopback `port`, waiting `readTimeoutSeconds` at most for the connect
    /// too (the send timeout bounds a blocking connect; it is lifted once connected).
    public init(port: UInt16, ipv6: Bool = false, readTimeoutSeconds: Int = 5) throws {
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = LoopbackAddress.withSockaddr(ipv6: ipv6, port: port) { connect(fd, $0, $1) }
        guard result == 0 else {
            let failure = ConnectFailed(errno: errno, sockets: ProcessResources.tcpTable(port: port))
            close(fd)
            throw failure
        }
        var unbounded = timeval(tv_sec: 0, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &unbounded, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    public func send(_ text: String) {
        send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Sends `GET target` (or another method) with extra header lines and an optional body.
    public func request(_ target: String, method: String = "GET", headers: [String] = [], body: String? = nil) {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        send(text)
    }

    /// Reads whatever arrives within `milliseconds` (or until EOF): for checking a stall.
    public func read(for milliseconds: Int32) -> (bytes: [UInt8], end: End?) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return (bytes, nil) }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return (bytes, .eof) }
            if n < 0 { return (bytes, errno == ECONNRESET ? .reset : .timeout) }
            bytes += buffer[0..<n]
        }
    }

    /// Reads until EOF, a reset, the read timeout, or `limit` bytes.
    public func readToEnd(limit: Int = 64 << 20) -> Response {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while bytes.count < limit {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return Response(bytes: bytes, end: .eof) }
            if n < 0 {
                if errno == EINTR { continue }
                return Response(bytes: bytes, end: errno == ECONNRESET ? .reset : .timeout)
            }
            bytes += buffer[0..<n]
        }
        return Response(bytes: bytes, end: .timeout)
    }

    /// One request, whole response.
    public static func fetch(
        port: UInt16, _ target: String, method: String = "GET", headers: [String] = [], body: String? = nil,
        ipv6: Bool = false
    ) throws -> Response {
        let client = try TestServerRawClient(port: port, ipv6: ipv6)
        client.request(target, method: method, headers: headers, body: body)
        return client.readToEnd()
    }
}
