import Foundation

/// The `scale` suite's comparison with Go's clients: Benchmarks/Go/scale (gorilla/websocket,
/// donovanhide/eventsource, Go's HTTP/2) opens the same number of idle clients against the
/// same peer right after the Swift clients of a case have closed, and reports its RSS per
/// client measured the same way. Built on first use by Benchmarks/Go/build.sh from Debian's
/// packages; without Go the rows are left out (and say why once). `RT_BENCH_GO=0` skips it.
enum GoComparison {
    struct Figures {
        var kibPerClient: Double
        var heapKiBPerClient: Double
        var openSeconds: Double
        var connections: Int
    }

    /// The client's path, built once per process; nil when Go or its libraries are missing.
    static let binary: String? = {
        guard ProcessInfo.processInfo.environment["RT_BENCH_GO"] != "0" else { return nil }
        let root = FileManager.default.currentDirectoryPath
        let (status, output) = run(root + "/Benchmarks/Go/build.sh", [])
        guard status == 0, let path = output.split(separator: "\n").last.map(String.init) else {
            print("  (no Go comparison: Benchmarks/Go/build.sh failed: \(output.trimmingCharacters(in: .whitespacesAndNewlines)))")
            return nil
        }
        return path
    }()

    /// Opens `count` Go clients of `url`'s kind (at most `window` connecting at once), trusting
    /// `caFile` for TLS; nil without Go, or when the run failed (printed).
    static func measure(url: URL, count: Int, window: Int, caFile: String?) -> Figures? {
        guard let binary else { return nil }
        var arguments = ["-url", url.absoluteString, "-n", String(count), "-window", String(window)]
        if let caFile { arguments += ["-ca", caFile] }
        let (status, output) = run(binary, arguments)
        guard status == 0, let line = output.split(separator: "\n").first(where: { $0.hasPrefix("GO ") }) else {
            print("  (Go comparison failed, status \(status): \(output.trimmingCharacters(in: .whitespacesAndNewlines)))")
            return nil
        }
        let fields = line.split(separator: " ").dropFirst().reduce(into: [String: Double]()) {
            let pair = $1.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { $0[String(pair[0])] = Double(pair[1]) }
        }
        guard let kib = fields["rss_kib"], let heap = fields["heap_kib"], let open = fields["open"] else { return nil }
        return Figures(kibPerClient: kib, heapKiBPerClient: heap, openSeconds: open, connections: Int(fields["conns"] ?? 0))
    }

    /// The figures as extra columns of `m`, with the ratio of our RSS per connection to Go's.
    static func append(_ go: Figures?, ours kib: Double, to m: inout Measurement) {
        guard let go else { return }
        m.extra += [
            ("Go KiB/conn idle", go.kibPerClient), ("Go heap KiB/conn idle", go.heapKiBPerClient),
            ("Go open s", go.openSeconds), ("Go connections", Double(go.connections)),
            ("KiB/conn ÷ Go's", kib / go.kibPerClient),
        ]
    }

    private static func run(_ executable: String, _ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (-1, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
