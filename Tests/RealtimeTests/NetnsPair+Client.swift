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

    /// Starts `scripts/netns/sse_server.py` in the server namespace on port 8080:
    /// `count` events, one every `intervalMilliseconds`, resuming after `Last-Event-ID`.
    func spawnSSEServer(count: Int, intervalMilliseconds: Int) throws -> Process {
        try spawn(in: server, [
            "python3", NetnsPair.scripts.appendingPathComponent("sse_server.py").path,
            NetnsPair.serverAddress, "8080", "\(count)", "\(intervalMilliseconds)",
        ])
    }
}
#endif
