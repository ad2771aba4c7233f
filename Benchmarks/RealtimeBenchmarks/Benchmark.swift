/// One named benchmark. `run` generates its own input (so a filtered-out benchmark costs
/// nothing), measures, checks its results, and returns one or more measurements.
struct Benchmark: Sendable {
    /// Short name, unique within its suite (e.g. `llm`); the full name is `suite/name`.
    let name: String
    let run: @Sendable () throws -> [Measurement]
}
