/// A group of benchmarks owned by one area of the SDK. To add one, write a file with a
/// `static let suite = BenchmarkSuite(...)` and list it in `main.swift`.
struct BenchmarkSuite: Sendable {
    /// Prefix of every benchmark name in it, e.g. `sse-parser`.
    let name: String
    let benchmarks: [Benchmark]
}
