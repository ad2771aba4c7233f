#if canImport(Glibc)
import Glibc
#endif

extension Socket {
    /// Connects a blocking TCP socket to a numeric `host` (IPv4 or IPv6 literal) and `port`,
    /// waiting at most `timeoutMilliseconds`. Throws on failure (the socket is closed).
    static func connect(numericHost host: String, port: Int, timeoutMilliseconds: Int32) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw Failure(call: "getaddrinfo", errno: EINVAL)
        }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Failure(call: "socket", errno: errno) }
        if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else {
                let failure = Failure(call: "connect", errno: errno)
                close(fd)
                throw failure
            }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var n: Int32
            repeat { n = poll(&p, 1, timeoutMilliseconds) } while n < 0 && errno == EINTR
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if n <= 0 || soError != 0 {
                close(fd)
                throw Failure(call: "connect", errno: n <= 0 ? ETIMEDOUT : soError)
            }
        }
        // Back to blocking: the proxy's relay threads block in recv/send.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~Int32(O_NONBLOCK))
        return fd
    }
}
