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
    /// (RST). The client reports a retryable network error (not a clean end, not the idle
    /// timeout), and once the server is back the first attempt after the announced backoff
    /// (the client's own timer, on a manual clock) resumes with no lost or duplicated message.
    @Test(arguments: FaultRig.Kind.allCases)
    func serverKilledMidStreamResumesOnceRestarted(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("sk", kind) { rig in
            let count = 100
            try await rig.startServer(count: count, intervalMilliseconds: 20, ["--rst"])
            let clock = ManualClock()
            // A long idle timeout (longer than every wait below), so only the reset itself can
            // end the connection.
            let client = try rig.makeClient(clock: clock) { $0.idleTimeout = .seconds(60) }
            defer { client.close() }
            let log = FaultEventLog(client)
            try await bounded("30 messages: \(log.summary)", seconds: 10) { log.ids.count >= 30 }
            let opensBefore = log.opens.count
            let errorsBefore = log.errors.count
            let attemptsBefore = client.statistics.attempts
            let killedAt = ContinuousClock.now
            await rig.killServers()
            try await bounded("the reset to be noticed: \(log.summary)", seconds: 20) { log.errors.count > errorsBefore }
            let end = log.errors[errorsBefore]
            try await rig.startServer(count: count, intervalMilliseconds: 20, ["--rst"])
            let delay = try #require(end.event.retryIn, "\(log.summary)")
            if delay > .zero { await clock.waitForSleepers() }
            #expect(client.statistics.attempts == attemptsBefore, "no attempt before the backoff ends")
            clock.advance(by: delay)
            try await bounded("a reconnect: \(log.summary)", seconds: 10) { log.opens.count > opensBefore }
            try await bounded("all \(count) messages: \(log.summary)", seconds: 15) { log.lastID == count }

            let ids = log.ids
            print("Fault \(kind) server killed (RST): noticed after \(end.at - killedAt) (\(end.event.error.code)), backoff \(delay); \(ids.count) messages")
            #expect(end.event.error.code == .network, "a reset is a network error, not a clean end or the idle timeout: \(log.summary)")
            #expect(end.event.willRetry)
            #expect(delay <= .milliseconds(500), "within the 500 ms backoff cap")
            #expect(client.statistics.attempts == attemptsBefore + 1, "the first attempt after the backoff reconnected: \(log.summary)")
            #expect(log.errors.count == errorsBefore + 1, "one error for the outage: \(log.summary)")
            #expect(ids == Array(1...count), "no lost or duplicated message: \(log.summary)")
        }
    }

    /// The server goes away (SIGKILL: FIN) and comes back on the same port. While it is down
    /// every attempt is refused and the client backs off by the exact, growing delays it
    /// announces (no jitter; its timer on a manual clock: no attempt until the delay has
    /// passed); the first attempt after the restart reconnects and resumes exactly.
    @Test(arguments: FaultRig.Kind.allCases)
    func serverRestartedOnTheSamePortIsBackedOffThenResumed(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("sr", kind) { rig in
            let count = 100
            try await rig.startServer(count: count, intervalMilliseconds: 20)
            let step = Duration.milliseconds(800)
            let clock = ManualClock()
            let client = try rig.makeClient(clock: clock) { c in
                c.backoff = .exponential(initial: .milliseconds(200), maximum: step, jitter: .none)
            }
            defer { client.close() }
            let log = FaultEventLog(client)
            try await bounded("30 messages: \(log.summary)", seconds: 10) { log.ids.count >= 30 }
            let opensBefore = log.opens.count
            let endsBefore = log.ends.count
            let attemptsBefore = client.statistics.attempts
            await rig.killServers()
            // The cut: an error and a close (WebSocket: TCP closed without a close frame), or a
            // close alone (SSE: the body ended looking clean). A close announces no delay.
            try await bounded("the cut: \(log.summary)", seconds: 10) { log.ends.count > endsBefore }
            let cut = log.ends[endsBefore].event.errorEvent
            var seen = log.errors.count
            var delay = cut?.retryIn ?? step  // the cap covers whatever a close waits
            var refused: [ErrorEvent] = []
            // Three refused attempts, each made only when the test moves the clock.
            for n in 1...3 {
                await clock.waitForSleepers()
                #expect(client.statistics.attempts == attemptsBefore + n - 1, "no attempt before the backoff ends: \(log.summary)")
                if n > 1 || cut != nil {
                    clock.advance(by: delay - .milliseconds(1))
                    // The sleeper leaves the clock as it fires: still there, the backoff has not ended.
                    #expect(clock.sleeperCount == 1 && client.statistics.attempts == attemptsBefore + n - 1, "not even 1 ms early")
                    clock.advance(by: .milliseconds(1))
                } else {
                    clock.advance(by: delay)
                }
                try await bounded("refused attempt \(n): \(log.summary)", seconds: 10) { [seen] in log.errors.count > seen }
                let error = log.errors[seen].event
                refused.append(error)
                seen += 1
                delay = try #require(error.retryIn)
            }
            await clock.waitForSleepers()
            try await rig.startServer(count: count, intervalMilliseconds: 20)
            clock.advance(by: delay - .milliseconds(1))
            #expect(clock.sleeperCount == 1 && client.statistics.attempts == attemptsBefore + 3, "the server is back, the backoff is not over yet")
            clock.advance(by: .milliseconds(1))
            try await bounded("a reconnect: \(log.summary)", seconds: 10) { log.opens.count > opensBefore }
            try await bounded("all \(count) messages: \(log.summary)", seconds: 15) { log.lastID == count }

            let delays = refused.compactMap(\.retryIn)
            let ids = log.ids
            print("Fault \(kind) server restarted: cut \(cut.map { "\($0.error.code), retry in \(String(describing: $0.retryIn))" } ?? "closed"), refused attempts' delays \(delays) (manual clock); reopened at attempt \(client.statistics.attempts - attemptsBefore) after the cut; \(ids.count) messages")
            // The cut itself may end as `remoteClosed` (TCP closed without a close frame).
            #expect(refused.allSatisfy { [.network, .remoteClosed].contains($0.error.code) && $0.willRetry }, "\(log.summary)")
            #expect(cut.map { [.network, .remoteClosed].contains($0.error.code) && $0.retryIn == .milliseconds(200) } ?? true, "the cut: \(log.summary)")
            #expect(delays == [.milliseconds(400), step, step], "backed off, growing to the cap: \(delays)")
            #expect(client.statistics.attempts == attemptsBefore + 4, "the first attempt after the restart reconnected")
            #expect(ids == Array(1...count), "no lost or duplicated message: \(log.summary)")
        }
    }

    /// The server's kernel accepts the connection, nobody ever answers: the attempt fails
    /// with `connectTimeout` after the configured connect timeout (the transport's timer, on
    /// the event loop), and is retried after the announced backoff (the client's timer, on a
    /// manual clock).
    @Test(arguments: FaultRig.Kind.allCases)
    func serverThatNeverAnswersTimesOutBackedOff(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("sn", kind) { rig in
            try await rig.startSilentServer()
            let timeout = Duration.seconds(5)
            let clock = ManualClock()
            let client = try rig.makeClient(clock: clock) { c in
                c.connectTimeout = timeout
                c.backoff = .exponential(initial: .milliseconds(300), maximum: .seconds(1), jitter: .none)
            }
            defer { client.close() }
            let startedAt = ContinuousClock.now
            let log = FaultEventLog(client)
            try await bounded("a timed-out attempt: \(log.summary)", seconds: 20) { log.errors.count >= 1 }
            let first = log.errors[0].at - startedAt
            await clock.waitForSleepers()
            #expect(client.statistics.attempts == 1, "backed off: no second attempt before the delay")
            clock.advance(by: .milliseconds(300))
            try await bounded("the second attempt: \(log.summary)", seconds: 10) { client.statistics.attempts == 2 }
            let errors = log.errors
            print("Fault \(kind) never answers: connectTimeout after \(first) (connect timeout \(timeout)), retried after the 300 ms backoff (manual clock)")
            #expect(errors.first?.event.error.code == .connectTimeout, "\(log.summary)")
            #expect(errors.first?.event.retryIn == .milliseconds(300))
            // The kernel completed the connection at once; only the timer can end it, and not
            // before it is due (a lower bound: a loaded machine only makes it later).
            #expect(first >= timeout - .milliseconds(50), "the connect timeout, not sooner")
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
            let log = FaultEventLog(client)
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
