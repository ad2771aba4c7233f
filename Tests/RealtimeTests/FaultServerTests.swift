#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// Server-side faults on real namespaces (see ``FaultRig``), for both transports:
/// a server killed mid-stream, a server down for a while and restarted on the same port, a
/// server that accepts and never answers, and a server that drips its bytes. Root only.
@Suite(.serialized, .timeLimit(.minutes(3))) struct FaultServerTests {
    /// SIGKILL with `SO_LINGER` 0 on the server's sockets: the kernel resets the connection
    /// (RST). The client reports a retryable network error (not a clean end), reconnects as
    /// soon as the server is back, and resumes with no lost or duplicated message.
    @Test(arguments: FaultRig.Kind.allCases)
    func serverKilledMidStreamResumesOnceRestarted(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("sk", kind) { rig in
            let count = 100
            try await rig.startServer(count: count, intervalMilliseconds: 20, ["--rst"])
            // A long idle timeout, so only the reset itself can end the connection quickly.
            let client = try rig.makeClient { $0.idleTimeout = .seconds(30) }
            defer { client.close() }
            let log = FaultEventLog(client, lastID: count)
            try await bounded("30 messages: \(log.summary)", seconds: 10) { log.ids.count >= 30 }
            let opensBefore = log.opens.count
            let killedAt = ContinuousClock.now
            await rig.killServers()
            try await bounded("the reset to be noticed: \(log.summary)", seconds: 3) { log.firstEnd(after: killedAt) != nil }
            let end = try #require(log.firstEnd(after: killedAt))
            try await rig.startServer(count: count, intervalMilliseconds: 20, ["--rst"])
            let readyAt = ContinuousClock.now
            try await bounded("a reconnect: \(log.summary)", seconds: 5) { log.opens.count > opensBefore }
            let reopened = log.opens[opensBefore]
            try await bounded("all \(count) messages: \(log.summary)", seconds: 15) { log.lastID == count }

            let ids = log.ids
            print("Fault \(kind) server killed (RST): noticed after \(end.at - killedAt) (\(end.event.short)); restart took \(readyAt - killedAt); reopened \(reopened - readyAt) after the server was back; \(ids.count) messages")
            #expect(end.event.errorEvent?.error.code == .network, "a reset is a network error, not a clean end: \(log.summary)")
            #expect(end.event.errorEvent?.willRetry == true)
            #expect(end.at - killedAt < .seconds(5), "a reset is noticed at once (milliseconds; slack for a loaded machine)")
            #expect(reopened - readyAt < .seconds(3), "reconnect within the 500 ms backoff cap (+ slack for a loaded machine)")
            #expect(ids == Array(1...count), "no lost or duplicated message: \(log.summary)")
        }
    }

    /// The server goes away (SIGKILL: FIN) for 1.5 s and comes back on the same port. While it
    /// is down every attempt is refused and the client backs off (exact delays, no jitter);
    /// then it reconnects within one backoff step and resumes exactly.
    @Test(arguments: FaultRig.Kind.allCases)
    func serverRestartedOnTheSamePortIsBackedOffThenResumed(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("sr", kind) { rig in
            let count = 100
            try await rig.startServer(count: count, intervalMilliseconds: 20)
            let step = Duration.milliseconds(800)
            let client = try rig.makeClient { c in
                c.backoff = .exponential(initial: .milliseconds(200), maximum: step, jitter: .none)
            }
            defer { client.close() }
            let log = FaultEventLog(client, lastID: count)
            try await bounded("30 messages: \(log.summary)", seconds: 10) { log.ids.count >= 30 }
            let opensBefore = log.opens.count
            let attemptsBefore = client.statistics.attempts
            let killedAt = ContinuousClock.now
            await rig.killServers()
            await WallTime.hold(for: .milliseconds(1500))
            let attemptsWhileDown = client.statistics.attempts - attemptsBefore
            try await rig.startServer(count: count, intervalMilliseconds: 20)
            let readyAt = ContinuousClock.now
            try await bounded("a reconnect: \(log.summary)", seconds: 5) { log.opens.count > opensBefore }
            let reopened = log.opens[opensBefore]
            try await bounded("all \(count) messages: \(log.summary)", seconds: 15) { log.lastID == count }

            let refused = log.errors(from: killedAt, to: readyAt)
            let delays = refused.compactMap(\.retryIn)
            let ids = log.ids
            print("Fault \(kind) server restarted: \(attemptsWhileDown) attempts in 1.5 s down, retry delays \(delays); reopened \(reopened - readyAt) after the server was back; \(ids.count) messages")
            #expect(!refused.isEmpty, "refused attempts are reported: \(log.summary)")
            // The cut itself may end as `remoteClosed` (TCP closed without a close frame).
            #expect(refused.allSatisfy { [.network, .remoteClosed].contains($0.error.code) && $0.willRetry }, "\(log.summary)")
            #expect(delays == delays.sorted() && delays.allSatisfy { $0 >= .milliseconds(200) }, "backed off, growing")
            // 200 + 400 + 800 ms: at most 4 attempts fit in 1.5 s (the one cut by the kill
            // plus three refused ones); without backoff it would be hundreds.
            #expect(attemptsWhileDown <= 4, "backed off while the server is down")
            #expect(reopened - readyAt < step + .seconds(2), "reconnect within one backoff step of the restart (+ slack for a loaded machine)")
            #expect(ids == Array(1...count), "no lost or duplicated message: \(log.summary)")
        }
    }

    /// The server's kernel accepts the connection, nobody ever answers: the attempt fails
    /// with `connectTimeout` after the configured connect timeout, and is retried with backoff.
    @Test(arguments: FaultRig.Kind.allCases)
    func serverThatNeverAnswersTimesOutBackedOff(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("sn", kind) { rig in
            try await rig.startSilentServer()
            let timeout = Duration.seconds(1)
            let client = try rig.makeClient { c in
                c.connectTimeout = timeout
                c.backoff = .exponential(initial: .milliseconds(300), maximum: .seconds(1), jitter: .none)
            }
            defer { client.close() }
            let startedAt = ContinuousClock.now
            let log = FaultEventLog(client, lastID: nil)
            try await bounded("two timed-out attempts: \(log.summary)", seconds: 8) { log.errors.count >= 2 }
            let errors = log.errors
            let first = errors[0].at - startedAt
            let second = errors[1].at - errors[0].at
            print("Fault \(kind) never answers: connectTimeout after \(first), next after \(second) (connect timeout \(timeout), backoff 300 ms)")
            #expect(errors.prefix(2).allSatisfy { $0.event.error.code == .connectTimeout }, "\(log.summary)")
            #expect(errors.prefix(2).map(\.event.retryIn) == [.milliseconds(300), .milliseconds(600)])
            #expect(first >= timeout - .milliseconds(50) && first < timeout + .milliseconds(1500), "the connect timeout, not sooner, not much later")
            // Arrival times may be delayed unevenly on a loaded machine; the attempt count is not.
            #expect(client.statistics.attempts <= 3, "backed off: no burst of attempts")
            #expect(ContinuousClock.now - startedAt >= timeout * 2 + .milliseconds(300), "two connect timeouts and a backoff")
            #expect(client.statistics.connections == 0)
        }
    }

    /// Every byte on its own, 50 ms apart: a message (22 bytes on the wire) takes 1.1 s to
    /// arrive, longer than the 800 ms idle timeout and the WebSocket heartbeat's 800 ms death
    /// bound (ping after 400 ms, 1 miss). Bytes keep flowing, so there is no false timeout,
    /// and every message arrives whole.
    @Test(arguments: FaultRig.Kind.allCases)
    func slowDripServerDeliversCompleteMessages(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("sd", kind) { rig in
            let count = 3
            // "N|event N " + 10 bytes of filler + a 2-byte header: the SSE event's 22 bytes.
            let pad = kind == .sse ? [] : ["--pad", "10"]
            try await rig.startServer(count: count, intervalMilliseconds: 0, ["--drip-ms", "50"] + pad)
            let client = try rig.makeClient { c in
                c.idleTimeout = .milliseconds(800)
                if kind == .webSocket { c.heartbeat = .ping(every: .milliseconds(400), missedLimit: 1) }
            }
            defer { client.close() }
            let startedAt = ContinuousClock.now
            let log = FaultEventLog(client, lastID: count)
            try await bounded("\(count) dripped messages: \(log.summary)", seconds: 10) { log.lastID == count }
            let texts = log.entries.compactMap { e in if case .event(let m) = e.event { m.text } else { nil } }
            let expected = (1...count).map { kind == .sse ? "event \($0)" : "\($0)|event \($0) xxxxxxxxxx" }
            print("Fault \(kind) slow drip (1 byte / 50 ms): \(count) messages in \(ContinuousClock.now - startedAt), no timeout")
            #expect(log.errors.isEmpty, "no false idle/heartbeat timeout while bytes flow: \(log.summary)")
            #expect(texts == expected, "every message whole, once, in order")
            #expect(log.opens.count == 1)
        }
    }
}
#endif
