#if os(Linux)
import Dispatch
@_spi(Transport) import RealtimeCore

extension EventLoop {
    /// The network monitor of this loop: a `LinuxNetworkMonitor` on this loop, for every
    /// interface, made on first use and shared by every client on the loop (one netlink
    /// socket). It is what a client uses by default (`RealtimeClient.Configuration`'s
    /// `networkMonitor`), and `LinuxNetworkMonitor.shared` is the one of ``shared``.
    ///
    /// It is made on the loop's own thread, so it sees the network namespace that thread is
    /// in (a loop whose thread entered another namespace with setns(2) watches that
    /// namespace's interfaces, as the sockets made on it live there). The first use from
    /// another thread waits for the loop to make it (a netlink table dump: about a
    /// millisecond). ``shutdown()`` stops it.
    @_spi(Transport)
    public var networkMonitor: LinuxNetworkMonitor {
        if let made = monitorSlot.withLock({ $0 }) { return made }
        let made: LinuxNetworkMonitor
        if inEventLoop {
            made = LinuxNetworkMonitor(eventLoop: self)
        } else {
            let result = LockedValue<LinuxNetworkMonitor?>(nil)
            let done = DispatchSemaphore(value: 0)
            execute { [self] in
                result.withLock { $0 = LinuxNetworkMonitor(eventLoop: self) }
                done.signal()
            }
            // A loop already shut down runs nothing: its monitor is made here (it never
            // hears a change, as nothing runs on the loop any more).
            if done.wait(timeout: .now() + .seconds(5)) == .timedOut {
                result.withLock { $0 = $0 ?? LinuxNetworkMonitor(eventLoop: self) }
            }
            made = result.withLock { $0! }
        }
        return monitorSlot.withLock { slot in
            if let earlier = slot { return earlier }  // another thread made one first
            slot = made
            return made
        }
    }
}
#endif
