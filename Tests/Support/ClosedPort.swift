#if os(Linux)
import Glibc

/// A loopback TCP port that refuses connections for as long as this object lives: a socket
/// bound to it that never listens, so a connect gets a RST and no other test's server can
/// take the port meanwhile (a port freed by closing a listener can be bound again at once
/// by a suite running in parallel, and then the "refused" connection is accepted).
public final class ClosedPort: Sendable {
    public struct Failed: Error {}

    public let port: UInt16
    private let fd: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard fd >= 0, bound == 0, named == 0 else {
            close(fd)
            throw Failed()
        }
        self.fd = fd
        self.port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(fd)
    }
}
#endif
