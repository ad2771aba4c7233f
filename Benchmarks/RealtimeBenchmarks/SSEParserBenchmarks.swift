import Realtime

/// Throughput of `SSEParser` on the corpora of the parser benchmarks, each fed in 4 KiB chunks, with a
/// `memchr` pass over the same bytes as the physical limit.
enum SSEParserBenchmarks {
    static let suite = BenchmarkSuite(name: "sse-parser", benchmarks: [
        Benchmark(name: "llm") { [try corpusRun("llm", .llm(), goals: [("≥ 1500 MB/s", { $0.megabytesPerSecond >= 1500 })])] },
        Benchmark(name: "llm-crlf") { [try llmCRLF()] },
        Benchmark(name: "large") { [try corpusRun("large", .large(), repetitions: 3, goals: [("≥ 5000 MB/s", { $0.megabytesPerSecond >= 5000 })])] },
        Benchmark(name: "tiny") { [try corpusRun("tiny", .tiny(), goals: [("≥ 30 M events/s", { $0.itemsPerSecond >= 30e6 })])] },
        Benchmark(name: "worst-case") { try worstCase() },
        Benchmark(name: "hot-4k-borrowing") { [try hotBorrowing()] },
    ])

    static let chunkSize = 4096

    /// Feeds `bytes` to a fresh parser in `chunk`-byte pieces; returns (events, data bytes).
    @inline(never)
    static func parse(_ bytes: [UInt8], chunk: Int, limits: SSEParser.Limits = .default) throws -> (events: Int, dataBytes: Int) {
        var parser = SSEParser(limits: limits)
        var events = 0
        var dataBytes = 0
        try bytes.withUnsafeBytes { raw in
            var i = 0
            while i < raw.count {
                let n = min(chunk, raw.count - i)
                try parser.feed(UnsafeRawBufferPointer(rebasing: raw[i..<i + n])) { output in
                    if case .event(let e) = output {
                        events &+= 1
                        dataBytes &+= e.data.utf8.count
                    }
                }
                i += n
            }
        }
        parser.finish()
        return (events, dataBytes)
    }

    static func corpusRun(
        _ name: String, _ corpus: SSECorpus, chunk: Int = chunkSize, repetitions: Int = 5,
        limits: SSEParser.Limits = .default, goals: [(String, (Measurement) -> Bool)] = []
    ) throws -> Measurement {
        let run = try Timing.best(repetitions) { try parse(corpus.bytes, chunk: chunk, limits: limits) }
        return measurement(name, corpus, run, goals: goals)
    }

    static func measurement(
        _ name: String, _ corpus: SSECorpus, _ run: (seconds: Double, value: (events: Int, dataBytes: Int)),
        goals: [(String, (Measurement) -> Bool)] = []
    ) -> Measurement {
        let counts = run.value
        var m = Measurement(name: "\(suite.name)/\(name)", bytes: corpus.bytes.count, items: counts.events, seconds: run.seconds)
        m.memchrSeconds = Timing.memchrPass(corpus.bytes)
        m.correct = counts.events == corpus.events && counts.dataBytes == corpus.dataBytes
        if !m.correct {
            m.note = "expected \(corpus.events) events / \(corpus.dataBytes) data bytes, got \(counts.events) / \(counts.dataBytes)"
        }
        m.goals = goals.map { ($0.0, $0.1(m)) }
        return m
    }

    /// The `llm` corpus with CRLF line ends, timed alternately with the LF corpus so the
    /// ratio between them is not distorted by load on the machine.
    static func llmCRLF() throws -> Measurement {
        let lf = SSECorpus.llm()
        let crlf = SSECorpus.llm(lineEnd: "\r\n")
        let (a, b) = try Timing.bestInterleaved(5, { try parse(lf.bytes, chunk: chunkSize) }, { try parse(crlf.bytes, chunk: chunkSize) })
        let reference = measurement("llm (interleaved)", lf, a)
        var m = measurement("llm-crlf", crlf, b)
        let ratio = m.megabytesPerSecond / reference.megabytesPerSecond
        m.extra = [("vs llm", ratio)]
        m.goals = [("within 20% of llm", ratio >= 0.8)]
        return m
    }

    /// The parser's job on the I/O thread of the end-to-end path: 4 KiB events arriving in
    /// 16 KiB chunks that are hot in cache (just received), fed to the borrowing
    /// `feed(_:_:borrowing:)` whose consumer copies each event's data into a reused buffer
    /// (as the transport copies it into its arena). The 1 MiB corpus stays in cache; each run
    /// parses it 16 times.
    static func hotBorrowing() throws -> Measurement {
        let corpus = SSECorpus.hot4K()
        let passes = 16
        let run = try Timing.best(5) { () -> (events: Int, dataBytes: Int) in
            var arena: [UInt8] = []
            arena.reserveCapacity(1 << 20)
            var events = 0
            var dataBytes = 0
            try corpus.bytes.withUnsafeBytes { raw in
                for _ in 0..<passes {
                    var parser = SSEParser()
                    var i = 0
                    while i < raw.count {
                        let n = min(16 << 10, raw.count - i)
                        try parser.feed(UnsafeRawBufferPointer(rebasing: raw[i..<i + n]), { _ in }) { event in
                            events &+= 1
                            dataBytes &+= event.data.count
                            if arena.count + event.data.count > arena.capacity { arena.removeAll(keepingCapacity: true) }
                            arena.append(contentsOf: event.data)
                        }
                        i += n
                    }
                }
            }
            Timing.blackHole(arena.count)
            return (events / passes, dataBytes / passes)
        }
        var m = measurement("hot-4k-borrowing", corpus, run)
        m.bytes *= passes
        m.items *= passes
        m.memchrSeconds = m.memchrSeconds.map { $0 * Double(passes) }
        return m
    }

    /// One 64 MiB event in 16-byte chunks against the same event in 4 KiB chunks, timed
    /// alternately: a parser that rescans what it has seen is quadratic here.
    static func worstCase() throws -> [Measurement] {
        let corpus = SSECorpus.oneHugeEvent()
        let (a, b) = try Timing.bestInterleaved(
            2,
            { try parse(corpus.bytes, chunk: chunkSize, limits: .unlimited) },
            { try parse(corpus.bytes, chunk: 16, limits: .unlimited) })
        let big = measurement("worst-case/4KiB-chunks", corpus, a)
        var small = measurement("worst-case/16B-chunks", corpus, b)
        let slowdown = small.seconds / big.seconds
        small.extra = [("slowdown vs 4KiB", slowdown)]
        small.goals = [("within 4× of 4 KiB chunks", slowdown <= 4)]
        return [big, small]
    }
}
