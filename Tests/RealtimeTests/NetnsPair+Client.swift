#if os(Linux)
import CLinux
import Foundation
import Realtime
import RealtimeTestSupport

extension NetnsPair {
    /// The name of every client-namespace loop's thread (at most 15 bytes, as a thread's name).
    static let clientLoopName = "rt-fault-client"

    /// A private event loop whose thread has entered the client namespace with setns(2), so
    /// every socket a client on it makes (curl's included) lives there. nil if it could not.

    func makeClientLoop() async -> EventLoop? {
        let loop = EventLoop(name: Self.clientLoopName)
        let namespace = client
        let entered: Bool = await loop.submit {
            let fd = open("/run/netns/\(namespace)", O_RDONLY | O_CLOEXEC)
            defer { if fd >= 0 { close(fd) } }
            return fd >= 0 && rt_setns_net(fd) == 0
        }
        if entered { return loop }
        loop.shutdown()
        return nil
    }
}
#endif
