import Foundation

/// Runs benchmarks and prints their measurements as a table or as JSON lines.
struct BenchmarkRunner {
    var json: Bool

    /// Returns the process exit status: 0, or 1 when a benchmark failed or miscounted.
    func run(_ suites: [BenchmarkSuite], filters: [String]) -> Int32 {
        var status: Int32 = 0
        if !json {
            print("benchmark                          MB      MB/s     events/s    memchr MB/s  ratio  goals")
        }
        for suite in suites {
            for benchmark in suite.benchmarks {
                let full = "\(suite.name)/\(benchmark.name)"
                guard filters.isEmpty || filters.contains(where: { Self.matches(full, $0) }) else { continue }
                do {
                    for m in try benchmark.run() {
                        if !m.correct { status = 1 }
                        print(json ? jsonLine(m) : tableLine(m))
                    }
                } catch {
                    status = 1
                    FileHandle.standardError.write(Data("\(full): failed: \(error)\n".utf8))
                }
            }
        }
        return status
    }

    /// A filter ending in `$` must match the end of the name (`llm$` selects `sse-parser/llm`
    /// but not `sse-parser/llm-crlf`); otherwise any part of the name matches.
    static func matches(_ name: String, _ filter: String) -> Bool {
        if filter.hasSuffix("$") { return name.hasSuffix(String(filter.dropLast())) }
        return name.contains(filter)
    }

    private func fixed(_ v: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", v)
    }

    private func pad(_ s: String, _ width: Int, right: Bool = true) -> String {
        let n = s.count
        guard n < width else { return s }
        let fill = String(repeating: " ", count: width - n)
        return right ? fill + s : s + fill
    }

    func tableLine(_ m: Measurement) -> String {
        var line = pad(m.name, 32, right: false)
        line += pad(fixed(Double(m.bytes) / 1e6, 1), 8)
        line += pad(fixed(m.megabytesPerSecond, 0), 10)
        line += pad(fixed(m.itemsPerSecond / 1e6, 2) + " M", 13)
        line += pad(m.memchrMegabytesPerSecond.map { fixed($0, 0) } ?? "-", 15)
        line += pad(m.memchrRatio.map { fixed($0, 2) } ?? "-", 7)
        for (name, value) in m.extra { line += "  \(name) \(fixed(value, 2))" }
        for (goal, met) in m.goals { line += "  [\(met ? "met" : "MISSED"): \(goal)]" }
        if let a = m.allocationsPerItem { line += "  allocs/item \(fixed(a, 2))" }
        if !m.correct { line += "  WRONG COUNTS: \(m.note)" }
        return line
    }

    func jsonLine(_ m: Measurement) -> String {
        func q(_ s: String) -> String {
            var out = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
                default: out.unicodeScalars.append(u)
                }
            }
            return out + "\""
        }
        func num(_ v: Double) -> String { v.isFinite ? String(format: "%.6g", v) : "null" }
        var fields: [String] = [
            "\"name\": \(q(m.name))",
            "\"bytes\": \(m.bytes)",
            "\"items\": \(m.items)",
            "\"seconds\": \(num(m.seconds))",
            "\"MBps\": \(num(m.megabytesPerSecond))",
            "\"itemsPerSecond\": \(num(m.itemsPerSecond))",
            "\"memchrMBps\": \(m.memchrMegabytesPerSecond.map(num) ?? "null")",
            "\"memchrRatio\": \(m.memchrRatio.map(num) ?? "null")",
            "\"correct\": \(m.correct)",
        ]
        if let a = m.allocationsPerItem { fields.append("\"allocationsPerItem\": \(num(a))") }
        for (name, value) in m.extra { fields.append("\(q(name)): \(num(value))") }
        if !m.goals.isEmpty {
            fields.append("\"goals\": {" + m.goals.map { "\(q($0.0)): \($0.1)" }.joined(separator: ", ") + "}")
        }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
