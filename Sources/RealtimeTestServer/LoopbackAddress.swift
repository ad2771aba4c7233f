#if canImport(Glibc)
import Glibc
#endif

/// The loopback address the test server binds (127.0.0.1, or ::1), as a `sockaddr` for
/// `bind(2)` or `connect(2)`. Public so raw-socket tests reach the server the same way.
package enum LoopbackAddress {
    /// Calls `body` with the loopback `sockaddr` for `port` and its length.
    package static func withSockaddr<T>(
        ipv6: Bool, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) -> T {
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
