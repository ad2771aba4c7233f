/// What one benchmark measured. Throughputs are derived from `bytes`, `items` and `seconds`.
struct Measurement: Sendable {
    /// Full name, `suite/benchmark` (or more specific).
    var name: String
    /// Input bytes processed in one run.
    var bytes: Int
    /// Items (events, messages) produced in one run.
    var items: Int
    /// CPU time of the fastest run, in seconds.
    var seconds: Double
    /// CPU time of a plain `memchr` pass over the same bytes, measured in the same process.
    var memchrSeconds: Double?
    /// Heap allocations (`malloc` calls) per item, counted over one run, when available.
    var allocationsPerItem: Double?
    /// Extra named figures (e.g. a ratio between two runs).
    var extra: [(String, Double)] = []
    /// Goals and whether they were met, e.g. ("≥ 1500 MB/s", true).
    var goals: [(String, Bool)] = []
    /// False when the results did not match the expected counts.
    var correct: Bool = true
    var note: String = ""

    var megabytesPerSecond: Double { Double(bytes) / seconds / 1e6 }
    var itemsPerSecond: Double { Double(items) / seconds }
    var memchrMegabytesPerSecond: Double? { memchrSeconds.map { Double(bytes) / $0 / 1e6 } }
    /// Parser speed as a fraction of `memchr` speed (1.0 = as fast as memchr).
    var memchrRatio: Double? { memchrSeconds.map { $0 / seconds } }
}
