#if os(Linux)
import CLinux
import Glibc

/// Socket options the transports set on descriptors they did not create themselves (for
/// example from libcurl's `CURLOPT_SOCKOPTFUNCTION`).
package enum SocketOptions {
    /// Sets `TCP_USER_TIMEOUT` (Linux, tcp(7)): transmitted data left unacknowledged for
    /// `milliseconds` closes the connection. Returns false if the kernel refused it.
    @discardableResult
    package static func setTCPUserTimeout(_ fd: Int32, milliseconds: UInt32) -> Bool {
        var value = milliseconds
        return setsockopt(fd, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, &value, socklen_t(MemoryLayout<UInt32>.size)) == 0
    }

    /// Sets `TCP_KEEPCNT`: unanswered keep-alive probes before the kernel drops the
    /// connection. Returns false if the kernel refused it.
    @discardableResult
    package static func setKeepAliveCount(_ fd: Int32, _ count: Int32) -> Bool {
        var value = count
        return setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
}
#endif
