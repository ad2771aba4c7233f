#if os(Linux)
import CLinux
import Foundation
import RealtimeCore
@_spi(Transport) import RealtimeIO
import RealtimeTestSupport
import Testing

/// The netlink monitor against the real kernel tables. The link test builds its own
/// network namespaces and veth pair (root only; skipped with a printed reason otherwise)
/// and runs the monitor on a private loop whose thread entered one of them, so the host's
/// namespace is never touched.
@Suite(.serialized, .timeLimit(.minutes(1))) struct LinuxNetworkMonitorTests {
    @Test func readsTheTablesAndNeverCountsLoopback() throws {
        let snapshot = try #require(LinuxNetworkMonitor.readTables())
        #expect(snapshot.links.values.contains { $0.name == "lo" })
        #expect(!snapshot.usableInterfaces().contains("lo"))
        let loopbackOnly = LinuxNetworkMonitor(interfaces: ["lo"])
        defer { loopbackOnly.stop() }
        #expect(loopbackOnly.currentStatus.reachability == .unreachable)
    }

    /// A monitor released after its (own) loop shut down closes its netlink socket all the
    /// same: the loop can no longer run the teardown, so the release does it. (The descriptor
    /// is checked by the socket it names, as another test may reuse its number.)
    @Test func releasedAfterItsLoopShutDownClosesItsSocket() async throws {
        func socket(_ fd: Int32) -> String? {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
        }
        let loop = EventLoop(name: "t-nm-stopped")
        var monitor: LinuxNetworkMonitor? = LinuxNetworkMonitor(eventLoop: loop)
        let fd: Int32 = await loop.submit { [monitor] in monitor!.subscriptionDescriptor }
        let inode = try #require(socket(fd))
        #expect(inode.hasPrefix("socket:"))
        loop.shutdown()
        monitor = nil
        #expect(socket(fd) != inode, "the netlink socket is closed with the monitor")
    }

    @Test func reportsLinkDownAndUpInANamespace() async throws {
        guard let ns = await NetnsPair.make(tag: "nm") else { return }
        defer { ns.destroy() }
        let loop = EventLoop(name: "rt-netns-test")
        defer { loop.shutdown() }
        let entered: Bool = await loop.submit {
            let fd = open("/run/netns/\(ns.client)", O_RDONLY | O_CLOEXEC)
            defer { if fd >= 0 { close(fd) } }
            return fd >= 0 && rt_setns_net(fd) == 0
        }
        try #require(entered, "setns into \(ns.client)")
        let monitor: LinuxNetworkMonitor = await loop.submit { LinuxNetworkMonitor(eventLoop: loop) }
        defer { monitor.stop() }
        #expect(monitor.currentStatus.reachability == .reachable, "veth up with an address and a route")

        let seen = LockedValue<[(NetworkStatus, ContinuousClock.Instant)]>([])
        let observation = monitor.observe { s in seen.withLock { $0.append((s, .now)) } }
        defer { monitor.cancel(observation) }

        let downAt = ContinuousClock.now
        try await ns.ip(ns.server, "link", "set", ns.serverVeth, "down")
        try await waitFor("unreachable") { seen.withLock { $0.last?.0.reachability == .unreachable } }
        let downLatency = seen.withLock { $0.last!.1 } - downAt
        let upAt = ContinuousClock.now
        try await ns.ip(ns.server, "link", "set", ns.serverVeth, "up")
        try await waitFor("reachable again") { seen.withLock { $0.last?.0.reachability == .reachable } }
        let upLatency = seen.withLock { $0.last!.1 } - upAt
        print("LinuxNetworkMonitor: link down seen after \(downLatency), link up after \(upLatency)")
        // Carrier loss on a veth reaches netlink through the kernel's linkwatch, which
        // batches non-urgent events for up to 1 s; then the 20 ms settle delay. The latency is
        // printed, not asserted: a loaded machine delays the loop thread too; `waitFor` bounds it.

        // Taking our own interface down is immediate (an administrative change).
        let adminDownAt = ContinuousClock.now
        try await ns.ip(ns.client, "link", "set", ns.clientVeth, "down")
        try await waitFor("unreachable after admin down") { seen.withLock { $0.last?.0.reachability == .unreachable } }
        let adminLatency = seen.withLock { $0.last!.1 } - adminDownAt
        print("LinuxNetworkMonitor: own interface down seen after \(adminLatency)")
        try await ns.ip(ns.client, "link", "set", ns.clientVeth, "up")
        try await waitFor("reachable after admin up") { seen.withLock { $0.last?.0.reachability == .reachable } }

        let generation = monitor.currentStatus.pathGeneration
        try await ns.ip(ns.client, "addr", "add", "10.251.0.5/32", "dev", ns.clientVeth)
        try await waitFor("a path change for a new address") { monitor.currentStatus.pathGeneration > generation }
        #expect(monitor.currentStatus.reachability == .reachable)
    }

    /// Waits, bounded at 10 s (linkwatch batches for up to 1 s), for what the monitor reported.
    func waitFor(_ what: String, _ condition: @Sendable () -> Bool) async throws {
        guard await eventually(within: .seconds(10), condition) else {
            Issue.record("timed out waiting for \(what)")
            throw CancellationError()
        }
    }
}
#endif
