import Foundation

/// Timing and baseline helpers shared by every suite.
enum Timing {
    /// Set by `--reps N`: every measurement runs N times (e.g. more for profiling).
    nonisolated(unsafe) static var repetitionOverride: Int?

    /// This thread's CPU time in seconds. Benchmarks measure CPU time, not wall time, so that
    /// other processes competing for the cores (a shared build machine) do not distort the
    /// figures; the benchmarks are single-threaded and do no I/O, so the two agree on an idle
    /// machine.
    static func threadCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Runs `body` `repetitions` times and returns the fastest CPU time in seconds, and the
    /// value of the last run.
    static func best<T>(_ repetitions: Int, _ body: () throws -> T) rethrows -> (seconds: Double, value: T) {
        let repetitions = repetitionOverride ?? repetitions
        var best = Double.infinity
        var value: T?
        for _ in 0..<max(1, repetitions) {
            let start = threadCPUTime()
            let v = try body()
            best = min(best, threadCPUTime() - start)
            value = v
        }
        return (best, value!)
    }

    private static func once<T>(_ body: () throws -> T) rethrows -> (seconds: Double, value: T) {
        let start = threadCPUTime()
        let value = try body()
        return (threadCPUTime() - start, value)
    }

    /// Like ``best(_:_:)`` for two bodies run alternately, so that a burst of load on a
    /// shared machine hits both: their ratio is then far steadier than two separate runs.
    static func bestInterleaved<A, B>(
        _ repetitions: Int, _ a: () throws -> A, _ b: () throws -> B
    ) rethrows -> (a: (seconds: Double, value: A), b: (seconds: Double, value: B)) {
        var ra: (seconds: Double, value: A)?
        var rb: (seconds: Double, value: B)?
        for _ in 0..<max(1, repetitionOverride ?? repetitions) {
            let x = try once(a)
            let y = try once(b)
            if ra == nil || x.seconds < ra!.seconds { ra = x }
            if rb == nil || y.seconds < rb!.seconds { rb = y }
        }
        return (ra!, rb!)
    }

    /// The physical limit for a line-oriented parser: `memchr` for LF over all of `bytes`,
    /// line after line. Returns the fastest time over `repetitions` runs.
    static func memchrPass(_ bytes: [UInt8], repetitions: Int = 5) -> Double {
        let (seconds, count) = best(repetitions) { () -> Int in
            bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                var p = base
                let end = base + raw.count
                var lines = 0
                while p < end, let hit = memchr(p, 0x0A, end - p) {
                    lines &+= 1
                    p = UnsafeRawPointer(hit) + 1
                }
                return lines
            }
        }
        blackHole(count)
        return seconds
    }

    /// Keeps the optimiser from discarding a computed value.
    @inline(never)
    static func blackHole<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }
}
