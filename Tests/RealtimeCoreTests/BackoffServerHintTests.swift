import RealtimeCore
import RealtimeTestSupport
import Testing

/// After a server's SSE `retry:`, the next attempt comes at the hint plus at most 25 %, and
/// only consecutive failures grow the delay (from the hint), within the usual bounds.
@Suite(.timeLimit(.minutes(1))) struct BackoffServerHintTests {
    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    @Test(arguments: [Jitter.full, .equal, .decorrelated])
    func theFirstRetryComesAtTheHintPlusAtMostAQuarter(_ jitter: Jitter) {
        for seed in 1...200 as ClosedRange<UInt64> {
            var b = Backoff(policy: .exponential(jitter: jitter))
            var rng = SeededGenerator(seed: seed)
            b.setServerReconnectionTime(.milliseconds(2500))
            let first = Self.seconds(b.nextDelay(using: &rng))
            #expect(first >= 2.5 && first <= 3.125, "seed \(seed): \(first)")
        }
    }

    @Test func consecutiveFailuresGrowFromTheHintAndSuccessResets() {
        var b = Backoff(policy: .exponential(jitter: .decorrelated))
        var rng = SeededGenerator(seed: 3)
        b.setServerReconnectionTime(.milliseconds(2500))
        let delays = (0..<6).map { _ in Self.seconds(b.nextDelay(using: &rng)) }
        let envelopes = [2.5, 5, 10, 20, 30, 30]
        for (delay, envelope) in zip(delays, envelopes) {
            #expect(delay >= envelope && delay <= min(envelope * 1.25, 30), "\(delays)")
        }
        #expect(delays.last == 30, "the cap: `maximum` (30 s), above the hint")
        b.connectionEnded(after: .seconds(10))
        let again = Self.seconds(b.nextDelay(using: &rng))
        #expect(again >= 2.5 && again <= 3.125, "a stable connection starts over at the hint: \(again)")
    }

    @Test func stormControlStaysInForce() {
        // The floor: a `retry: 0` still waits 100 ms or a little more.
        var zero = Backoff(policy: .exponential())
        var rng = SeededGenerator(seed: 9)
        zero.setServerReconnectionTime(.zero)
        let floored = Self.seconds(zero.nextDelay(using: &rng))
        #expect(floored >= 0.1 && floored <= 0.125)
        // The server's limit: a `retry:` of a day is bounded by `maximum` unless allowed longer.
        var long = Backoff(policy: .exponential())
        long.setServerReconnectionTime(.seconds(86_400))
        let bounded = Self.seconds(long.nextDelay(using: &rng))
        #expect(bounded >= 30 && bounded <= 37.5)
        var allowed = BackoffPolicy.exponential()
        allowed.maximumServerDelay = .seconds(3600)
        var opted = Backoff(policy: allowed)
        opted.setServerReconnectionTime(.seconds(86_400))
        let hour = Self.seconds(opted.nextDelay(using: &rng))
        #expect(hour >= 3600 && hour <= 4500)
        // A `Retry-After` is still a floor for its delay.
        var after = Backoff(policy: .exponential())
        after.setServerReconnectionTime(.milliseconds(2500))
        #expect(after.nextDelay(retryAfter: .seconds(20), using: &rng) == .seconds(20))
    }

    @Test func withoutJitterTheHintIsExact() {
        var b = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        b.setServerReconnectionTime(.milliseconds(2500))
        #expect(b.nextDelay(using: &rng) == .milliseconds(2500))
        #expect(b.nextDelay(using: &rng) == .seconds(5))
    }
}
