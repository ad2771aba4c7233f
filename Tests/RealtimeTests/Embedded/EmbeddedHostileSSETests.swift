#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// Hostile SSE bodies through ``RealtimeClient`` on the embedded stack: NUL bytes, two BOMs,
/// a `retry:` beyond any delay and a `retry: 0` before failures, a 1.1 MB id, invalid UTF-8. The loop is the client's
/// clock, so the delays the client asks for are exact. (Hostile bodies that need libcurl's
/// HTTP parsing are over a socket in `HostileSSETests`; the map of every hostile case is in
/// `HostileInputMapTests.swift`.)
@Suite(.timeLimit(.minutes(1))) struct EmbeddedHostileSSETests {
    @Test func nulInDataArrivesIntactAndAnIDWithNULIsIgnoredByTheResume() async throws {
        let t = try EmbeddedClient { $0.backoff = .constant(.milliseconds(100)) }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send("id: 1\ndata: a\u{0}b\n\nid: 2\u{0}evil\ndata: c\n\n")
        first.reset()
        let events = await rec.waitFor(4)
        #expect(events.prefix(4).map(\.short).map { $0.replacingOccurrences(of: "\u{0}", with: "<NUL>") }
            == ["open(1)", "event(a<NUL>b)", "event(c)", "error(network,retry)"])
        let messages = events.compactMap { if case .event(let m) = $0 { return m } else { return nil } }
        #expect(messages.map(\.text) == ["a\u{0}b", "c"])
        #expect(messages.map(\.id) == ["1", "1"], "the id with NUL is ignored: the cursor stays 1")
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        #expect(second.request.lastEventID == "1")
        second.respond(status: 204, headers: [])
        second.finish()
        await rec.waitUntilFinished()
        #expect(t.client.state == .closed(nil), "204: the server asked the client to stop (\(rec.summary))")
        #expect(t.connectionCount == 2)
    }

    @Test func ofTwoBOMsTheFirstIsStrippedAndTheSecondSpoilsTheFirstLine() async throws {
        let t = try EmbeddedClient { $0.reconnect = .finite }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: lost\n\ndata: kept\n\n".utf8))
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(kept) closed(final)")
    }

    /// `retry: 99999999999999999999` is a hint, but the backoff's maximum still bounds the
    /// delay: the client waits exactly the maximum.
    @Test func anEnormousRetryHintWaitsNoLongerThanTheBackoffsMaximum() async throws {
        let t = try EmbeddedClient { $0.backoff = .exponential(maximum: .seconds(30), jitter: .none) }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send("retry: 99999999999999999999\n\nid: 1\ndata: a\n\n")
        first.reset()
        await rec.waitFor(3)
        let error = try #require(rec.events.at(2)?.errorEvent, "\(rec.summary)")
        #expect(error.willRetry && error.error.failureClass == .network, "\(error)")
        #expect(error.retryIn == .seconds(30))
        #expect(await t.waitForTheBackoff() == .seconds(30))
        t.advance(by: .seconds(30) - .milliseconds(1))
        #expect(t.connectionCount == 1, "not before the maximum")
        t.advance(by: .milliseconds(1))
        _ = try await t.sseAttempt(2)
    }

    /// `retry: 0`, then a server that fails every attempt: the delays start at the backoff's
    /// 100 ms floor and double from there, never a retry storm.
    @Test func aZeroRetryHintThenFailuresBacksOffFromTheFloor() async throws {
        let t = try EmbeddedClient { $0.reconnect = .limited(maxAttempts: 20) }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send("retry: 0\n\nid: 1\ndata: once\n\n")
        first.finish()
        var delays: [Duration] = []
        for attempt in 2...5 {
            guard let delay = await t.waitForTheBackoff() else { break }
            delays.append(delay)
            t.advance(by: delay)
            let server = try await t.sseAttempt(attempt)
            server.respond(status: 503, headers: [("Content-Type", "text/plain")])
            server.finish()
        }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800)], "\(delays)")
        await rec.waitFor("the fourth 503") { $0.errorEvent?.attempt == 5 }
        #expect(rec.events.compactMap(\.errorEvent).map(\.error.status) == [503, 503, 503, 503], "\(rec.summary)")
        #expect(rec.events.compactMap(\.errorEvent).allSatisfy { $0.willRetry }, "\(rec.summary)")
        t.client.close()
    }

    /// A 1.1 MB `id:` is ignored (the parser's 1 KiB bound): the message keeps the last good
    /// id, the cut that follows is retried, and the resume sends that id; never `internal`.
    @Test func aHugeIDIsIgnoredAndTheResumeUsesTheLastGoodOne() async throws {
        let t = try EmbeddedClient { $0.backoff = .immediate }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send("id: 1\ndata: a\n\n")
        first.send("id: " + String(repeating: "9", count: 1_100_000) + "\ndata: b\n\n")
        first.reset()
        await t.waitOutTheBackoff()  // the 100 ms floor
        let second = try await t.sseAttempt(2)
        #expect(second.request.lastEventID == "1")
        second.respond(status: 204, headers: [])
        second.finish()
        await rec.waitUntilFinished()
        let messages = rec.events.compactMap { if case .event(let m) = $0 { m } else { nil } }
        #expect(messages.map(\.text) == ["a", "b"] && messages.map(\.id) == ["1", "1"])
        let errors = rec.events.compactMap(\.errorEvent)
        #expect(errors.first?.willRetry == true && !errors.contains { $0.error.code == .internal }, "\(rec.summary)")
        #expect(t.connectionCount == 2)
    }

    /// With `strictUTF8`, invalid bytes are `invalid_utf8`, nothing delivered; by default
    /// they become U+FFFD.
    @Test(arguments: [true, false]) func invalidUTF8FailsAStrictStreamAndIsReplacedInALenientOne(strict: Bool) async throws {
        let t = try EmbeddedClient {
            $0.reconnect = .never
            $0.sse.strictUTF8 = strict
        }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send(Array("data: a".utf8) + [0xFF] + Array("b\n\n".utf8))
        first.finish()
        await rec.waitUntilFinished()
        let texts = rec.events.compactMap { if case .event(let m) = $0 { m.text } else { nil } }
        if strict {
            #expect(texts.isEmpty, "\(rec.summary)")
            #expect(rec.events.compactMap(\.errorEvent).first?.error.code == .invalidUTF8)
        } else {
            #expect(texts == ["a\u{FFFD}b"], "\(rec.summary)")
        }
    }
}
#endif
