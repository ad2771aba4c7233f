#if os(Linux)
import Foundation
import Glibc

/// One HTTP/1.0 GET to a peer on loopback, over a plain socket: how the tests read a peer's
/// counters and records. Not `URLSession`: FoundationNetworking's libcurl use loses four small
/// allocations per request on this toolchain, which LeakSanitizer reports as leaks of the
/// test process (ours never go through it).
public enum LoopbackHTTP {
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// The body of `url`'s answer, which must be `200`; waits at most `timeout` for it.
    public static func get(_ url: URL, timeout: Duration = .seconds(60)) async throws -> Data {
        guard url.scheme == "http", let host = url.host, let port = url.port else {
            throw Failed(description: "not an http URL with a port: \(url)")
        }
        let target = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        let request = "GET \(target) HTTP/1.0\r\nHost: \(host):\(port)\r\nAccept: */*\r\n\r\n"
        let answer = try await offloaded { try exchange(host: host, port: port, request: Array(request.utf8), timeout: timeout) }
        guard let split = answer.firstRange(of: Data("\r\n\r\n".utf8)) else {
            throw Failed(description: "no complete response head from \(url)")
        }
        let statusLine = String(decoding: answer[..<split.lowerBound].prefix { $0 != 0x0D }, as: UTF8.self)
        guard statusLine.split(separator: " ").dropFirst().first == "200" else {
            throw Failed(description: "\(url) answered \(statusLine)")
        }
        return Data(answer[split.upperBound...])
    }

    /// Connects, sends `request` and reads until the peer closes (HTTP/1.0 ends the body so).
    private static func exchange(host: String, port: Int, request: [UInt8], timeout: Duration) throws -> Data {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw Failed(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { throw Failed(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            throw Failed(description: "connect to \(host):\(port): errno \(errno)")
        }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failed(description: "send: errno \(errno)") }
            sent += n
        }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return answer }
            guard n > 0 else { throw Failed(description: "recv from \(host):\(port): errno \(errno) (timeout \(timeout))") }
            answer.append(contentsOf: buffer[..<n])
        }
    }
}
#endif
