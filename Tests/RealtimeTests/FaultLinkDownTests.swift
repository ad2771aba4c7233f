#if os(Linux)
import CLinux
import Foundation
import Realtime
import RealtimeTestSupport
import Synchronization
import Testing

/// Fault injection on real network namespaces (issue 5): the server runs in one namespace
/// (`ip netns exec`), the client in another — its I/O loop thread entered the client
/// namespace with setns(2), so every socket it makes lives there — joined by a veth pair.
/// Root only: without it the suite prints why and skips. Every wait is bounded.
@Suite(.serialized) struct FaultLinkDownTests {
    /// One SSE stream of `count` events; the client's own interface goes down mid-stream
    /// for 1.5 s: the client reports the loss, makes no attempt while down, reconnects
    /// within 1 s of the link coming back, and resumes with no lost or duplicated event.
    @Test func sseLinkDownMidStream() async throws {
        guard let ns = NetnsPair.make(tag: "ld") else { return }
        defer { ns.destroy() }
        let count = 150
        let server = try ns.spawnSSEServer(count: count, intervalMilliseconds: 20)
        defer { NetnsPair.kill(server) }

        let loop = try #require(await ns.makeClientLoop())
        defer { loop.shutdown() }
        let monitor: LinuxNetworkMonitor = await loop.submit { LinuxNetworkMonitor(eventLoop: loop) }
        defer { monitor.stop() }
        let reachableAt = Mutex<ContinuousClock.Instant?>(nil)
        let observation = monitor.observe { status in
            if status.reachability == .reachable { reachableAt.withLock { $0 = $0 ?? .now } }
        }
        defer { monitor.cancel(observation) }

        var configuration = RealtimeClient.Configuration()
        configuration.networkMonitor = monitor
        // A long backoff, so "at once when the network returns" cannot pass by luck.
        configuration.backoff = .exponential(initial: .seconds(3), maximum: .seconds(5))
        configuration.connectTimeout = .seconds(2)
        configuration.idleTimeout = .seconds(5)
        let sseOptions = configuration.sse
        let client = try RealtimeClient(
            url: URL(string: "http://\(NetnsPair.serverAddress):8080/sse")!, configuration: configuration,
            clock: ContinuousClock(), random: SystemRandomNumberGenerator(),
            transportFactory: { SSETransport(request: $0, options: sseOptions, eventLoop: loop) })
        defer { client.close() }

        struct Log { var ids: [Int] = []; var events: [(ClientEvent, ContinuousClock.Instant)] = [] }
        let log = Mutex(Log())
        let consumer = Task {
            for await event in client.events {
                log.withLock { l in
                    l.events.append((event, .now))
                    if case .event(let m) = event, let id = m.id.flatMap(Int.init) { l.ids.append(id) }
                }
                if log.withLock({ $0.ids.last == count }) { break }
            }
        }
        defer { consumer.cancel() }

        try await bounded("30 events", seconds: 10) { log.withLock { $0.ids.count >= 30 } }
        let attemptsBefore = client.statistics.attempts
        try ns.ip(ns.client, "link", "set", ns.clientVeth, "down")
        try await bounded("the loss to be reported", seconds: 3) {
            log.withLock { $0.events.contains { $0.0.errorEvent?.error.code == .unreachable } }
        }
        try await Task.sleep(for: .milliseconds(1500))
        let attemptsWhileDown = client.statistics.attempts - attemptsBefore
        reachableAt.withLock { $0 = nil }
        let upAt = ContinuousClock.now
        let opensBefore = log.withLock { l in l.events.filter { if case .open = $0.0 { true } else { false } }.count }
        try ns.ip(ns.client, "link", "set", ns.clientVeth, "up")
        try await bounded("a reconnect", seconds: 5) {
            log.withLock { l in l.events.filter { if case .open = $0.0 { true } else { false } }.count > opensBefore }
        }
        let openedAt = log.withLock { l in l.events.last { if case .open = $0.0 { true } else { false } }!.1 }
        try await bounded("all \(count) events", seconds: 15) { log.withLock { $0.ids.last == count } }

        let ids = log.withLock { $0.ids }
        let latency = openedAt - upAt
        let seenUp = try #require(reachableAt.withLock { $0 })
        let ours = openedAt - seenUp
        print("Fault sse link-down: attempts while down \(attemptsWhileDown); link up → netlink reachable \(seenUp - upAt), → open \(latency) (client part \(ours)); \(ids.count) events")
        #expect(attemptsWhileDown == 0, "no connection attempt while the link is down")
        // The kernel reports carrier through linkwatch, which may batch it for up to 1 s;
        // from that report the client connects at once (TCP + HTTP on a veth: milliseconds).
        #expect(ours < .seconds(1), "reconnect at once (well before the 3 s backoff) when the network returns")
        #expect(latency < .seconds(2), "reconnect within the kernel's report + 1 s of link up")
        #expect(ids == Array(1...count), "no lost or duplicated event")
    }

    func bounded(_ what: String, seconds: Int, _ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            if ContinuousClock.now > deadline {
                Issue.record("timed out after \(seconds) s waiting for \(what)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
#endif
