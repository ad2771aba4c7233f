import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RealtimeCore
@testable import RealtimeWebSocket

/// A one-connection loopback server whose behaviour after the handshake is a script, for the
/// few cases no peer can be told to do (stay silent, vanish with RST mid-write). It accepts
/// one client, answers the opening handshake with a correct 101, then runs `script` with
/// the connected descriptor on its own thread.
final class ScriptedServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let thread: Thread

    /// - Parameter responseHeaders: extra header lines for the 101 (each ending in CRLF), e.g.
    ///   a `Sec-WebSocket-Extensions` answer.
    init(responseHeaders: String = "", script: @escaping @Sendable (Int32) -> Void) throws {
        let (fd, port) = Self.listen(backlog: 4)
        self.port = port
        listener = fd
        thread = Thread {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            var head: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 4096)
            while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
                let n = read(client, &buf, 1)
                if n <= 0 { close(client); return }
                head.append(buf[0])
            }
            let text = String(decoding: head, as: UTF8.self)
            let key = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
                .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? ""
            let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key, sha1: OpenSSLSHA1.digest))\r\n\(responseHeaders)\r\n"
            _ = response.withCString { write(client, $0, strlen($0)) }
            script(client)
        }
        thread.start()
    }

    var url: URL { URL(string: "ws://127.0.0.1:\(port)/")! }

    /// A listening TCP socket on 127.0.0.1 and an ephemeral port.
    static func listen(backlog: Int32) -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        Glibc.listen(fd, backlog)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, Int(UInt16(bigEndian: addr.sin_port)))
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Reads and discards until the peer closes or `seconds` pass; answers nothing.
    static func ignore(_ fd: Int32, seconds: Double) {
        var buf = [UInt8](repeating: 0, count: 65536)
        var tv = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let n = read(fd, &buf, buf.count)
            if n == 0 { break }
        }
        close(fd)
    }

    /// Closes with RST (SO_LINGER 0), so the client's next writes fail with EPIPE/ECONNRESET.
    static func reset(_ fd: Int32) {
        var lingerOption = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lingerOption, socklen_t(MemoryLayout<linger>.size))
        close(fd)
    }
}
