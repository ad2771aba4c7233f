#if os(Linux)
import Glibc

/// A loopback listener whose accept queue is full: one connection (the filler) waits in it,
/// never accepted, so the kernel drops the SYN of any other and that client stays in
/// `connect` (SYN_SENT) until it gives up. The one way to hold a transport in its TCP
/// connecting phase on loopback.
final class SaturatedListener: Sendable {
    struct Failed: Error { var call: String }

    let port: UInt16
    private let listener: Int32
    private let filler: Int32

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        // Backlog 0: the queue holds one connection; a second finds it full.
        guard bound == 0, listen(listener, 0) == 0 else {
            close(listener)
            throw Failed(call: "bind/listen")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
        }
        guard connected == 0 else {
            close(filler)
            close(listener)
            throw Failed(call: "connect")
        }
        self.port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        self.filler = filler
    }

    deinit {
        close(filler)
        close(listener)
    }
}
#endif
