import RealtimeTestSupport
import Testing

@testable import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct BackoffTests {
    private func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    @Test func noJitterFollowsTheDocumentedTable() {
        var b = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        let delays = (0..<8).map { _ in b.nextDelay(using: &rng) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
    }

    @Test func fullJitterStaysInsideTheEnvelope() {
        var b = Backoff(policy: .exponential(jitter: .full))
        var rng = SeededGenerator(seed: 7)
        let envelope: [Double] = [1, 2, 4, 8, 16, 30, 30, 30, 30, 30]
        var distinct = Set<Double>()
        for e in envelope {
            let d = seconds(b.nextDelay(using: &rng))
            #expect(d >= 0.1 && d <= e, "within the envelope, never below the 100 ms floor")
            distinct.insert(d)
        }
        #expect(distinct.count == envelope.count, "jitter must actually randomise")
    }

    @Test func equalJitterNeverGoesBelowHalf() {
        var b = Backoff(policy: .exponential(jitter: .equal))
        var rng = SeededGenerator(seed: 3)
        for e in [1.0, 2, 4, 8, 16, 30, 30] {
            let d = seconds(b.nextDelay(using: &rng))
            #expect(d >= e / 2 && d <= e)
        }
    }

    @Test func decorrelatedJitterIsBoundedByThreeTimesThePrevious() {
        var b = Backoff(policy: .default)
        var rng = SeededGenerator(seed: 11)
        var previous = 1.0
        for _ in 0..<50 {
            let d = seconds(b.nextDelay(using: &rng))
            #expect(d >= 1 && d <= min(30, previous * 3) + 1e-9)
            previous = d
        }
    }

    /// A streak keeps growing whatever the draws: no delay of retry n is below half the
    /// envelope, so a run of low draws cannot hold a failing client near the floor.
    @Test(arguments: [Duration.seconds(1), .milliseconds(100)])
    func decorrelatedJitterNeverFallsBelowHalfTheEnvelope(_ initial: Duration) {
        let policy = BackoffPolicy.exponential(initial: initial)
        for seed in UInt64(0)..<200 {
            var b = Backoff(policy: policy)
            var rng = SeededGenerator(seed: seed)
            for n in 1...10 {
                let d = b.nextDelay(using: &rng)
                let half = policy.envelope(retry: n, reconnectionTime: initial) / 2
                #expect(d >= Swift.max(initial, half), "seed \(seed), retry \(n): \(d)")
            }
        }
    }

    @Test func sameSeedSameDelays() {
        func run() -> [Duration] {
            var b = Backoff(policy: .default)
            var rng = SeededGenerator(seed: 42)
            return (0..<10).map { _ in b.nextDelay(using: &rng) }
        }
        #expect(run() == run())
    }

    @Test func stableConnectionResetsTheStreak() {
        var b = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        _ = b.nextDelay(using: &rng)
        _ = b.nextDelay(using: &rng)
        #expect(b.nextDelay(using: &rng) == .seconds(4))
        b.connectionEnded(after: .seconds(9))  // shorter than resetAfter (10 s)
        #expect(b.nextDelay(using: &rng) == .seconds(8))
        b.connectionEnded(after: .seconds(10))
        #expect(b.retry == 0)
        #expect(b.nextDelay(using: &rng) == .seconds(1))
    }

    @Test func sseRetryReplacesTheReconnectionTime() {
        var b = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        b.setServerReconnectionTime(.milliseconds(250))
        #expect(b.nextDelay(using: &rng) == .milliseconds(250))
        #expect(b.nextDelay(using: &rng) == .milliseconds(500))
        b.reset()
        #expect(b.nextDelay(using: &rng) == .milliseconds(250), "a reset keeps the server's time")
        // A huge retry: is capped by the configured maximum.
        b.setServerReconnectionTime(.seconds(100_000))
        b.reset()
        #expect(b.nextDelay(using: &rng) == .seconds(30))
    }

    @Test func longerServerDelaysOnlyWhenAllowed() {
        var p = BackoffPolicy.exponential(jitter: .none)
        p.maximumServerDelay = .seconds(3600)
        var b = Backoff(policy: p)
        var rng = SeededGenerator(seed: 1)
        b.setServerReconnectionTime(.seconds(100_000))
        #expect(b.nextDelay(using: &rng) == .seconds(3600))
        #expect(b.nextDelay(retryAfter: .seconds(999_999), using: &rng) == .seconds(3600))
        b.setServerReconnectionTime(.seconds(60))
        b.reset()
        #expect(b.nextDelay(using: &rng) == .seconds(60), "above `maximum`: opted in")
    }

    /// `retry: 0` once must not turn the backoff off: it sets the base, failures in a row
    /// still grow from it, with jitter, and nothing goes below the floor.
    @Test(arguments: [Jitter.none, .full, .equal, .decorrelated])
    func retryZeroStillBacksOff(_ jitter: Jitter) {
        var b = Backoff(policy: .exponential(jitter: jitter))
        var rng = SeededGenerator(seed: 5)
        b.setServerReconnectionTime(.zero)
        #expect(b.serverReconnectionTime == BackoffPolicy.minimumDelay)
        let delays = (0..<12).map { _ in seconds(b.nextDelay(using: &rng)) }
        #expect(delays.allSatisfy { $0 >= 0.1 && $0 <= 30 })
        #expect(delays.reduce(0, +) >= 6, "grows towards the maximum: \(delays)")
        if jitter == .none {
            #expect(delays.prefix(6) == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2])
        }
    }

    @Test func aZeroRetryAfterIsFloored() {
        var b = Backoff(policy: .exponential(initial: .milliseconds(100), jitter: .full))
        var rng = SeededGenerator(seed: 2)
        for _ in 0..<50 {
            #expect(b.nextDelay(retryAfter: .zero, using: &rng) >= .milliseconds(100))
            b.reset()
        }
    }

    @Test func retryAfterIsAFloorForOneDelay() {
        var b = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        #expect(b.nextDelay(retryAfter: .seconds(20), using: &rng) == .seconds(20))
        #expect(b.nextDelay(using: &rng) == .seconds(2), "the floor applies to one delay only")
        #expect(b.nextDelay(retryAfter: .seconds(1), using: &rng) == .seconds(4), "a smaller hint does not shorten")
        #expect(b.nextDelay(retryAfter: .seconds(999_999), using: &rng) == .seconds(30), "bounded by `maximum`")
    }

    @Test func serverHintsCanBeIgnored() {
        var p = BackoffPolicy.exponential(jitter: .none)
        p.honorsServerHints = false
        var b = Backoff(policy: p)
        var rng = SeededGenerator(seed: 1)
        b.setServerReconnectionTime(.seconds(9))
        #expect(b.nextDelay(retryAfter: .seconds(60), using: &rng) == .seconds(1))
    }

    @Test func constantAndImmediate() {
        var c = Backoff(policy: .constant(.milliseconds(300)))
        var i = Backoff(policy: .immediate)
        var rng = SeededGenerator(seed: 1)
        for _ in 0..<5 {
            #expect(c.nextDelay(using: &rng) == .milliseconds(300))
            #expect(i.nextDelay(using: &rng) == BackoffPolicy.minimumDelay)
        }
    }

    /// Server hints still apply to the constant presets, up to 30 s: a `Retry-After` or a
    /// `retry:` can make them wait longer, never shorter, and not past 30 s.
    @Test func serverHintsApplyToTheConstantPresetsUpToThirtySeconds() {
        var rng = SeededGenerator(seed: 1)
        var c = Backoff(policy: .constant(.seconds(1)))
        #expect(c.nextDelay(retryAfter: .seconds(7), using: &rng) == .seconds(7))
        #expect(c.nextDelay(using: &rng) == .seconds(1), "for that one delay")
        #expect(c.nextDelay(retryAfter: .seconds(3600), using: &rng) == .seconds(30))
        var i = Backoff(policy: .immediate)
        i.setServerReconnectionTime(.seconds(5))
        #expect(i.nextDelay(using: &rng) == .seconds(5))
        #expect(i.nextDelay(using: &rng) == .seconds(5), "a constant multiplier keeps the server's time")
        #expect(i.nextDelay(retryAfter: .milliseconds(10), using: &rng) == .seconds(5), "a hint never shortens")
        #expect(BackoffPolicy.constant(.seconds(60)).serverDelayLimit == .seconds(60))
    }

    @Test func hugeStreaksDoNotOverflow() {
        var b = Backoff(policy: .exponential(multiplier: 10, jitter: .none))
        var rng = SeededGenerator(seed: 1)
        var last = Duration.zero
        for _ in 0..<2000 { last = b.nextDelay(using: &rng) }
        #expect(last == .seconds(30))
    }
}
