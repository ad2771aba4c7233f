import Foundation

// swift run -c release RealtimeBenchmarks [--json] [--reps N] [name-filter ...]
//
// Runs every benchmark whose full name (`suite/name`) contains one of the filters (all when
// none; a filter ending in `$` must match the end of the name, e.g. `llm$`), printing a
// table, or one JSON object per measurement with --json. --reps N overrides how many times
// each measurement runs (the fastest run counts).
// Add a suite: write `<Area>Benchmarks.swift` with a `static let suite` and list it here.
let suites: [BenchmarkSuite] = [
    SSEParserBenchmarks.suite,
    WebSocketCodecBenchmarks.suite,
    SSETransportBenchmarks.suite,
    WebSocketEchoBenchmarks.suite,
    LatencyBenchmarks.suite,
    LLMBenchmarks.suite,
    ScaleBenchmarks.suite,
]

var json = false
var filters: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--json": json = true
    case "--reps":
        guard let n = arguments.popFirst().flatMap({ Int($0) }), n > 0 else {
            FileHandle.standardError.write(Data("--reps needs a positive count\n".utf8))
            exit(2)
        }
        Timing.repetitionOverride = n
    case "-h", "--help":
        print("usage: RealtimeBenchmarks [--json] [--reps N] [filter ...]\nbenchmarks:")
        for suite in suites { for b in suite.benchmarks { print("  \(suite.name)/\(b.name)") } }
        exit(0)
    default:
        if argument.hasPrefix("-") {
            FileHandle.standardError.write(Data("unknown option \(argument)\n".utf8))
            exit(2)
        }
        filters.append(argument)
    }
}

exit(BenchmarkRunner(json: json).run(suites, filters: filters))
