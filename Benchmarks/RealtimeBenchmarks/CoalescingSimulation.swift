import RealtimeLLM
import Realtime

/// Token streams run through ``CoalescingStateMachine`` on simulated time, the way the
/// adapter's I/O layer drives it, with a consumer that takes `render` to show each batch.
enum CoalescingSimulation {
    struct Scenario: Sendable {
        var name: String
        var tokens = 2000
        /// Tokens per arrival (a network read often carries several).
        var burst: ClosedRange<Int>
        /// Mean time between tokens.
        var gap: Duration
        var render = Duration.milliseconds(2)
        var seed: UInt64 = 3
    }

    static let scenarios = [
        Scenario(name: "50tps-steady", burst: 1...1, gap: .milliseconds(20)),
        Scenario(name: "100tps-bursty", burst: 1...6, gap: .milliseconds(10)),
        Scenario(name: "400tps", burst: 1...2, gap: .microseconds(2500)),
        Scenario(name: "2000tps-bursty", burst: 1...16, gap: .microseconds(500)),
    ]

    struct Result {
        var eventsIn = 0
        var batchesOut = 0
        var textBytes = 0
        var streamSeconds = 0.0
        var maxDelaySeconds = 0.0
        /// The shortest time between two batches, the flush at the end not counted.
        var minGapSeconds = Double.infinity
        var problems: [String] = []
    }

    static let interval = Duration.seconds(1) / 30

    /// Arrival times and deltas: `tokens` text deltas in bursts, then the finish and usage.
    static func arrivals(_ s: Scenario) -> [(Duration, LLMDelta)] {
        var rng = BenchmarkRandom(seed: s.seed)
        var out: [(Duration, LLMDelta)] = []
        var now = Duration.zero
        while out.count < s.tokens {
            let n = min(Int.random(in: s.burst, using: &rng), s.tokens - out.count)
            // Gaps vary ±50 % around the burst's share of the mean pace.
            let jitter = Double.random(in: 0.5...1.5, using: &rng)
            now += s.gap * (Double(n) * jitter)
            for _ in 0..<n { out.append((now, .text(LLMCorpus.words.randomElement(using: &rng)!))) }
        }
        out.append((now, .finish(.stop)))
        out.append((now, .usage(LLMUsage(outputTokens: s.tokens))))
        return out
    }

    static func run(_ s: Scenario) -> Result {
        let input = arrivals(s)
        var m = CoalescingStateMachine<LLMDelta, Never>(interval: interval, capacity: 1024, merge: LLMDelta.merge)
        var r = Result(eventsIn: input.count, textBytes: input.reduce(0) { $0 + ($1.1.text?.utf8.count ?? 0) })
        var next = 0
        var consumerAt: Duration? = .zero
        var timer: Duration?
        var ended = false
        var firstPending: Duration?
        var lastDelivery: Duration?
        var delivered: [LLMDelta] = []
        func record(_ batch: [LLMDelta], at now: Duration, flush: Bool) {
            if let last = lastDelivery, !flush {
                if now - last < interval { r.problems.append("two batches within an interval") }
                r.minGapSeconds = min(r.minGapSeconds, seconds(now - last))
            }
            if let first = firstPending { r.maxDelaySeconds = max(r.maxDelaySeconds, seconds(now - first)) }
            firstPending = nil
            lastDelivery = now
            r.batchesOut += 1
            delivered += batch
            consumerAt = now + s.render
        }
        while true {
            let arrival = next < input.count ? input[next].0 : nil
            let candidates = [arrival, consumerAt, timer, ended ? nil : (arrival == nil ? input.last!.0 : nil)].compactMap { $0 }
            guard let now = candidates.min() else { break }
            if let arrival, arrival == now {
                if firstPending == nil { firstPending = now }
                switch m.elementArrived(input[next].1, now: now) {
                case .deliver(let batch): record(batch, at: now, flush: false)
                case .armTimer(let deadline, _): timer = deadline
                case .none, .pause, .stop: break
                }
                next += 1
            } else if let t = timer, t == now {
                timer = nil
                if case .deliver(let batch, _) = m.timerFired(deadline: t, now: now) { record(batch, at: now, flush: false) }
            } else if let c = consumerAt, c == now {
                consumerAt = nil
                switch m.next(now: now) {
                case .deliver(let batch, _): record(batch, at: now, flush: ended)
                case .suspend: break
                case .suspendUntil(let deadline): timer = deadline
                case .finish: return finish(r, delivered: delivered, input: input)
                }
            } else {
                ended = true
                switch m.sourceEnded(nil, now: now) {
                case .deliver(let batch): record(batch, at: now, flush: true)
                case .finish: return finish(r, delivered: delivered, input: input)
                case .none: break
                }
            }
        }
        r.problems.append("the simulation stalled")
        return r
    }

    private static func finish(_ result: Result, delivered: [LLMDelta], input: [(Duration, LLMDelta)]) -> Result {
        var r = result
        r.streamSeconds = seconds(input.last!.0)
        var expected = LLMTranscript()
        var got = LLMTranscript()
        expected.apply(contentsOf: input.map(\.1))
        got.apply(contentsOf: delivered)
        if expected != got { r.problems.append("the batches do not add up to the stream") }
        return r
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
