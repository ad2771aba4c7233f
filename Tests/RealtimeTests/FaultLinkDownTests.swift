#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// Fault injection on real network namespaces (issue 5, see ``FaultRig``): the server runs
/// in one namespace, the client in another — its I/O loop thread entered the client
/// namespace with setns(2), so every socket it makes lives there — joined by a veth pair.
/// Root only: without it the suite prints why and skips. Every wait is bounded.
@Suite(.serialized, .timeLimit(.minutes(3))) struct FaultLinkDownTests {
    /// One stream of `count` messages; the client's own interface goes down mid-stream for
    /// 1.5 s: the client reports the loss, makes no attempt while down, reconnects within 1 s
    /// of the link coming back, and resumes with no lost or duplicated message.
    @Test(arguments: FaultRig.Kind.allCases)
    func linkDownMidStream(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("ld", kind) { rig in
            let count = 150
            try await rig.startServer(count: count, intervalMilliseconds: 20)
            let loop = rig.loop
            let monitor: LinuxNetworkMonitor = await loop.submit { LinuxNetworkMonitor(eventLoop: loop) }
            defer { monitor.stop() }
            let reachableAt = LockedValue<ContinuousClock.Instant?>(nil)
            let observation = monitor.observe { status in
                if status.reachability == .reachable { reachableAt.withLock { $0 = $0 ?? .now } }
            }
            defer { monitor.cancel(observation) }

            let client = try rig.makeClient { c in
                c.networkMonitor = monitor
                // A long backoff, so "at once when the network returns" cannot pass by luck.
                c.backoff = .exponential(initial: .seconds(3), maximum: .seconds(5))
            }
            defer { client.close() }
            let log = FaultEventLog(client, lastID: count)

            try await bounded("30 messages: \(log.summary)", seconds: 10) { log.ids.count >= 30 }
            let attemptsBefore = client.statistics.attempts
            try await rig.setClientLink(up: false)
            try await bounded("the loss to be reported: \(log.summary)", seconds: 3) {
                log.errors.contains { $0.event.error.code == .unreachable }
            }
            try await Task.sleep(for: .milliseconds(1500))
            let attemptsWhileDown = client.statistics.attempts - attemptsBefore
            reachableAt.withLock { $0 = nil }
            let opensBefore = log.opens.count
            let upAt = ContinuousClock.now
            try await rig.setClientLink(up: true)
            try await bounded("a reconnect: \(log.summary)", seconds: 5) { log.opens.count > opensBefore }
            let openedAt = log.opens[opensBefore]
            try await bounded("all \(count) messages: \(log.summary)", seconds: 15) { log.lastID == count }

            let ids = log.ids
            let latency = openedAt - upAt
            let seenUp = try #require(reachableAt.withLock { $0 })
            let ours = openedAt - seenUp
            print("Fault \(kind) link-down: attempts while down \(attemptsWhileDown); link up → netlink reachable \(seenUp - upAt), → open \(latency) (client part \(ours)); \(ids.count) messages")
            #expect(attemptsWhileDown == 0, "no connection attempt while the link is down")
            // The kernel reports carrier through linkwatch, which may batch it for up to 1 s;
            // from that report the client connects at once (TCP + HTTP on a veth: milliseconds).
            #expect(ours < .seconds(1), "reconnect at once (well before the 3 s backoff) when the network returns")
            #expect(latency < .seconds(2), "reconnect within the kernel's report + 1 s of link up")
            #expect(ids == Array(1...count), "no lost or duplicated message: \(log.summary)")
        }
    }
}
#endif
