#if os(Linux)
import CLinux
import Foundation
import Realtime
import RealtimeTestSupport

extension NetnsPair {
    /// A private event loop whose thread has entered the client namespace with setns(2), so
    /// every socket a client on it makes (curl's included) lives there. nil if it could not.
    func makeClientLoop() async -> EventLoop? {
        let loop = EventLoop(name: "rt-fault-client")
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
