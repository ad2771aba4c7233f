#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The server's `retry:` field through ``RealtimeClient`` (Resilience, "The server's
/// `retry:`"): which values count, how the delay grows from it, its jitter, and the switch
/// that turns server hints off.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientSSERetryFieldTests {
    /// Opens attempt 1, sends `body`, resets the connection and returns the error's `retryIn`.
    static func retryIn(after body: String, _ t: EmbeddedClient) async throws -> Duration? {
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send(body)
        first.reset()
        await rec.waitFor("the reset") { $0.errorEvent != nil }
        return rec.events.compactMap(\.errorEvent).first?.retryIn
    }

    /// A `retry` value that is not all ASCII digits is ignored (WHATWG §9.2.6): the delay
    /// stays the policy's.
    @Test(arguments: ["retry: 12a", "retry:  500", "retry: -1", "retry: 1.5", "retry: 500 ", "retry: +5"])
    func aRetryValueThatIsNotAllDigitsIsIgnored(line: String) async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        #expect(try await Self.retryIn(after: "\(line)\ndata: a\n\n", t) == .seconds(1))
        #expect(t.client.reconnectionTime == .seconds(1))
    }

    /// `retry:` without a space after the colon counts as well.
    @Test func aRetryWithoutASpaceSetsTheDelay() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        #expect(try await Self.retryIn(after: "retry:2500\n\n", t) == .milliseconds(2500))
    }

    /// Failures in a row grow the delay from the server's hint (2.5 s, 5 s, 10 s), and a
    /// stable connection starts over at the hint, not at the policy's initial delay.
    @Test func failuresGrowFromTheHintAndAStableConnectionStartsOverAtIt() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        #expect(try await Self.retryIn(after: "retry: 2500\n\n", t) == .milliseconds(2500))
        var delays = [try #require(await t.waitForTheBackoff())]
        for attempt in 2...3 {
            t.advance(by: delays[attempt - 2])
            EmbeddedClientPolicyTests.answer(try await t.sseAttempt(attempt), 503)
            delays.append(try #require(await t.waitForTheBackoff()))
        }
        #expect(delays == [.milliseconds(2500), .seconds(5), .seconds(10)])
        t.advance(by: .seconds(10))
        let fourth = try await t.sseAttempt(4)
        fourth.respond()
        t.advance(by: .seconds(10))  // BackoffPolicy.resetAfter: the connection was stable
        fourth.reset()
        #expect(await t.waitForTheBackoff() == .milliseconds(2500))
    }

    /// With the policy's jitter on, the server's hint gets at most 25 % more: `retry: 2500`
    /// waits between 2.5 and 3.125 s.
    @Test(arguments: 1...6 as ClosedRange<UInt64>) func theJitterAddsAtMostAQuarterToTheHint(seed: UInt64) async throws {
        let t = try EmbeddedClient(seed: seed) { $0.backoff = .exponential() }
        defer { t.client.close() }
        let delay = try #require(try await Self.retryIn(after: "retry: 2500\n\n", t))
        #expect(delay >= .milliseconds(2500) && delay <= .milliseconds(3125), "\(delay)")
    }

    /// ``BackoffPolicy/honorsServerHints`` false ignores `retry:` and `Retry-After`.
    @Test func withoutServerHintsRetryAndRetryAfterAreIgnored() async throws {
        let t = try EmbeddedClient { $0.backoff.honorsServerHints = false }
        defer { t.client.close() }
        #expect(try await Self.retryIn(after: "retry: 7000\n\n", t) == .seconds(1))
        #expect(t.client.reconnectionTime == .seconds(1))
        await t.waitOutTheBackoff()
        EmbeddedClientPolicyTests.answer(try await t.sseAttempt(2), 503, retryAfter: "20")
        #expect(await t.waitForTheBackoff() == .seconds(2))
    }
    /// A hint longer than ``BackoffPolicy/maximum`` that ``BackoffPolicy/maximumServerDelay``
    /// allows is kept, and failures in a row do not grow past it.
    @Test func aHintAboveTheMaximumIsTheCeilingWhenAllowed() async throws {
        let t = try EmbeddedClient { $0.backoff.maximumServerDelay = .seconds(120) }
        defer { t.client.close() }
        #expect(try await Self.retryIn(after: "retry: 40000\n\n", t) == .seconds(40))
        var delays = [try #require(await t.waitForTheBackoff())]
        for attempt in 2...3 {
            t.advance(by: delays[attempt - 2])
            EmbeddedClientPolicyTests.answer(try await t.sseAttempt(attempt), 503)
            delays.append(try #require(await t.waitForTheBackoff()))
        }
        #expect(delays == [.seconds(40), .seconds(40), .seconds(40)])
    }
}
#endif
