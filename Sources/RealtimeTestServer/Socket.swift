#if canImport(Glibc)
import Glibc
#endif

/// Thin wrappers over the POSIX socket calls the test server needs (blocking sockets).
///
/// The server is a test tool: one thread per connection and blocking I/O keep it
/// simple and obviously correct; `stop()` wakes every blocked call by shutting
/// the sockets down (see ``TestServer/stop()``).
enum Socket {
    /// Linux `POLLRDHUP` (peer closed its writing half); not imported by Glibc without `_GNU_SOURCE`.
    static let pollReadHangUp: Int16 = 0x2000

    struct Failure: Error, CustomStringConvertible {
        var call: String
        var errno: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
    }

    /// A listening socket bound to `host` (`127.0.0.1` or `::1`) and `port` (0 = any free port).
    static func listen(ipv6: Bool, port: UInt16, backlog: Int32 = 1024) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(call: "socket", errno: errno) }
        var one: Int32 = 1
        // SO_REUSEADDR: a restarted server must rebind its old port while earlier
        // connections sit in TIME_WAIT (reconnect tests stop and restart the server).
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if ipv6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let result = LoopbackAddress.withSockaddr(ipv6: ipv6, port: port) { bind(fd, $0, $1) }
        guard result == 0 else {
            let failure = Failure(call: "bind", errno: errno)
            close(fd)
            throw failure
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let failure = Failure(call: "listen", errno: errno)
            close(fd)
            throw failure
        }
        return (fd, localPort(fd))
    }

    static func localPort(_ fd: Int32) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        if Int32(storage.ss_family) == AF_INET6 {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    /// Waits until `fd` or `wakeFD` is readable, or `timeoutMilliseconds` pass (-1 = forever).
    /// Returns which of the two became ready.
    static func waitReadable(_ fd: Int32, events: Int16 = Int16(POLLIN), orWake wakeFD: Int32, timeoutMilliseconds: Int32)
        -> (ready: Bool, woken: Bool)
    {
        var fds = [
            pollfd(fd: fd, events: events, revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let n = poll(&fds, 2, timeoutMilliseconds)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return (false, false) }
            return (fds[0].revents != 0, fds[1].revents != 0)
        }
    }

    /// Sends all of `bytes`; never raises SIGPIPE (MSG_NOSIGNAL). Throws when the peer is gone.
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "send", errno: errno)
            }
            offset += n
        }
    }

    /// Receives up to `buffer.count` bytes; 0 means end of stream.
    static func receive(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(call: "recv", errno: errno)
            }
            return n
        }
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes the next `close` send a TCP RST instead of a FIN (SO_LINGER with a zero timeout).
    static func setAbortiveClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }
}
