/// Books reconnect slots ahead of time, out of order, without ever exceeding a token bucket's
/// rate: the schedule behind ``RetryBudget``. Sans-I/O: the caller passes the time.
///
/// A client books its slot when its backoff *begins* (asking for "not before now + backoff"),
/// so it can tell its user exactly when it will retry. Bookings therefore arrive out of order
/// (a client with a 30 s backoff may book before one with 100 ms), which a plain token bucket
/// cannot take: it only accounts for the present. The calendar keeps every future booking and
/// gives each request the earliest slot at or after the time asked for that keeps the whole
/// schedule within the limit.
///
/// **The limit.** Time is cut into ticks of `perTick / perSecond` seconds, where `perTick =
/// ⌈perSecond / 1000⌉` keeps a tick at least 1 ms long (one token per tick up to 1,000/s). Any
/// `m` consecutive ticks hold at most `burst + perTick·(m − 1)` slots: a discrete token bucket
/// of `burst` tokens refilled at `perSecond`. So any window of `w` seconds starts at most
/// `burst + perSecond·w` attempts (plus one tick's worth when the window straddles ticks).
///
/// **Cost.** A booking is O(booked future ticks); ticks in the past are folded into one
/// number, so memory is bounded by the bookings still ahead.
package struct RetryCalendar: Sendable, Hashable {
    /// Slots allowed at once after a quiet period (≥ 1; raised to ``perTick`` if below).
    package let burst: Int
    /// Sustained slots per second (> 0).
    package let perSecond: Double
    /// Slots refilled per tick (≥ 1).
    package let perTick: Int
    /// Length of one tick in seconds.
    package let tickSeconds: Double

    /// First tick that can still be booked; nil before the first booking.
    private var base: Int64?
    /// Largest excess over `perTick` of any run of ticks ending just before `base` (≥ 0):
    /// all that the past still weighs on the future.
    private var carry = 0
    /// Booked ticks at or after `base`, ascending, and their slot counts.
    private var ticks: [Int64] = []
    private var counts: [Int] = []

    package init(burst: Int, perSecond: Double) {
        precondition(burst >= 1, "RetryCalendar.burst must be >= 1")
        precondition(perSecond > 0 && perSecond.isFinite, "RetryCalendar.perSecond must be > 0")
        let perTick = Swift.max(1, Int((perSecond / 1000).rounded(.up)))
        self.perTick = perTick
        self.burst = Swift.max(burst, perTick)
        self.perSecond = perSecond
        self.tickSeconds = Double(perTick) / perSecond
    }

    /// Number of ticks with bookings still ahead (for tests of the memory bound).
    package var bookedTicks: Int { ticks.count }

    /// Books the earliest slot at or after `earliest` (and not before `now`) that keeps the
    /// schedule within the limit; returns its time on the caller's time line.
    /// - Parameters:
    ///   - now: the present, on any monotonic time line shared by every caller.
    ///   - earliest: when the caller wants to go (e.g. `now + backoff`).
    package mutating func reserve(now: Duration, notBefore earliest: Duration) -> Duration {
        let current = tick(now)
        fold(upTo: current)
        let wanted = Swift.max(current, tick(earliest))
        let chosen = firstFeasibleTick(from: wanted)
        book(chosen)
        let start = Duration.clampedSeconds(Double(chosen) * tickSeconds)
        return Swift.max(Swift.max(earliest, now), start)
    }

    // MARK: Internals

    private func tick(_ t: Duration) -> Int64 {
        let s = t.secondsDouble / tickSeconds
        guard s.isFinite, s > 0 else { return 0 }
        return Int64(Swift.min(s, 1e15).rounded(.down))
    }

    /// `max(0, x − perTick·gap)` without overflow: what a run excess `x` still weighs `gap`
    /// empty ticks later (each empty tick refills `perTick`).
    private func decay(_ x: Int, _ gap: Int64) -> Int {
        guard x > 0, gap > 0 else { return Swift.max(0, x) }
        if gap >= Int64(x) { return 0 }
        return Swift.max(0, x - perTick * Int(gap))
    }

    /// Moves `base` to `current`, folding the bookings before it into `carry`.
    private mutating func fold(upTo current: Int64) {
        guard let b = base else {
            base = current
            return
        }
        guard current > b else { return }
        var excess = carry
        var position = b
        var folded = 0
        while folded < ticks.count, ticks[folded] < current {
            excess = Swift.max(0, decay(excess, ticks[folded] - position) + counts[folded] - perTick)
            position = ticks[folded] + 1
            folded += 1
        }
        carry = decay(excess, current - position)
        base = current
        ticks.removeFirst(folded)
        counts.removeFirst(folded)
    }

    /// The first tick ≥ `wanted` where one more slot keeps every run of ticks within
    /// `burst − perTick` of excess. For tick j with n slots, the worst run through j is
    /// (worst run ending just before j) + (n + 1 − perTick) + (worst run starting just after
    /// j), so the test is `before + n + 1 + after ≤ burst`.
    private func firstFeasibleTick(from wanted: Int64) -> Int64 {
        let n = ticks.count
        // after[i]: the worst run starting just after ticks[i] (≥ 0).
        var after = [Int](repeating: 0, count: n)
        if n >= 2 {
            for i in stride(from: n - 2, through: 0, by: -1) {
                after[i] = decay(counts[i + 1] - perTick + after[i + 1], ticks[i + 1] - ticks[i] - 1)
            }
        }
        var excess = carry  // the worst run ending just before `position`
        var position = base ?? wanted
        // In a gap of empty ticks the run before decays and the run after grows as j moves
        // right, so the first j where the run before fits is the gap's only candidate.
        func firstFitting(from start: Int64) -> Int64 {
            let before = decay(excess, start - position)
            guard before > burst - 1 else { return start }
            let over = before - (burst - 1)
            return start + Int64((over + perTick - 1) / perTick)
        }
        for i in 0..<n {
            let gapEnd = ticks[i] - 1
            let from = Swift.max(position, wanted)
            if from <= gapEnd {
                let j = firstFitting(from: from)
                let runAfter = Swift.max(0, counts[i] - perTick + after[i])
                if j <= gapEnd, decay(excess, j - position) + 1 + decay(runAfter, gapEnd - j) <= burst {
                    return j
                }
            }
            let before = decay(excess, ticks[i] - position)
            if ticks[i] >= wanted, before + counts[i] + 1 + after[i] <= burst {
                return ticks[i]
            }
            excess = Swift.max(0, before + counts[i] - perTick)
            position = ticks[i] + 1
        }
        return firstFitting(from: Swift.max(position, wanted))
    }

    private mutating func book(_ t: Int64) {
        // Bookings mostly land at the end (a herd queues up); search from there.
        var i = ticks.count
        while i > 0, ticks[i - 1] > t { i -= 1 }
        if i > 0, ticks[i - 1] == t {
            counts[i - 1] += 1
        } else {
            ticks.insert(t, at: i)
            counts.insert(1, at: i)
        }
    }
}
