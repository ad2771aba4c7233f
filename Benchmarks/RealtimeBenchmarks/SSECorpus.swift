/// Deterministic SSE inputs for the parser benchmarks, with the counts a correct parser
/// must report for them.
struct SSECorpus {
    var bytes: [UInt8]
    /// Events a WHATWG parser dispatches.
    var events: Int
    /// Sum of the UTF-8 byte counts of their `data`.
    var dataBytes: Int

    /// ~200k OpenAI-style chat-completion delta events: JSON data with multibyte text, an
    /// `id:` line on every 10th event, `event:` on every 50th, a `: ping` comment (a blank
    /// line that dispatches nothing) every 100th. `lineEnd` is "\n" or "\r\n".
    static func llm(events count: Int = 200_000, lineEnd: String = "\n") -> SSECorpus {
        var rng = BenchmarkRandom(seed: 0x5EED)
        let words = [" the", " model", " streams", " token", " deltas", ",", ".", " über", " naïve", " café",
                     " 日本語", " テキスト", " 数据", " данные", " 🎉", " —", " ok", " JSON", " \\\"quoted\\\"", "\\n"]
        var out: [UInt8] = []
        out.reserveCapacity(count * 230)
        var dataBytes = 0
        for i in 0..<count {
            if i % 100 == 99 { out += Array(": ping\(lineEnd)\(lineEnd)".utf8) }
            if i % 10 == 0 { out += Array("id: \(i)\(lineEnd)".utf8) }
            if i % 50 == 0 { out += Array("event: completion.delta\(lineEnd)".utf8) }
            var text = ""
            for _ in 0..<Int.random(in: 1...6, using: &rng) { text += words[Int.random(in: 0..<words.count, using: &rng)] }
            let data = #"{"id":"chatcmpl-9Xk2LmQpR7","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"\#(text)"},"logprobs":null,"finish_reason":null}]}"#
            dataBytes += data.utf8.count
            out += Array("data: \(data)\(lineEnd)\(lineEnd)".utf8)
        }
        return SSECorpus(bytes: out, events: count, dataBytes: dataBytes)
    }

    /// 2k events of ~64 KiB each, spread over `data:` lines of 200–2000 bytes (ASCII, with a
    /// multibyte character every few lines).
    static func large(events count: Int = 2_000, eventSize: Int = 64 << 10) -> SSECorpus {
        var rng = BenchmarkRandom(seed: 0x1A26E)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * (eventSize + eventSize / 100))
        var dataBytes = 0
        for _ in 0..<count {
            var size = 0
            var first = true
            while size < eventSize {
                let n = min(Int.random(in: 200...2000, using: &rng), eventSize - size)
                out += Array("data: ".utf8)
                var line = (0..<n).map { _ in alphabet[Int.random(in: 0..<64, using: &rng)] }
                if n > 10 && Int.random(in: 0..<4, using: &rng) == 0 {
                    line.replaceSubrange(n - 3..<n, with: Array("é".utf8) + [0x21])
                }
                out += line
                out.append(0x0A)
                size += n + (first ? 0 : 1)
                first = false
            }
            out.append(0x0A)
            dataBytes += size
        }
        return SSECorpus(bytes: out, events: count, dataBytes: dataBytes)
    }

    /// `count` minimal events: `data: x` and a blank line.
    static func tiny(events count: Int = 2_000_000) -> SSECorpus {
        let one = Array("data: x\n\n".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * one.count)
        for _ in 0..<count { out += one }
        return SSECorpus(bytes: out, events: count, dataBytes: count)
    }

    /// One event of `size` bytes spread over `data:` lines of `lineLength` bytes.
    static func oneHugeEvent(size: Int = 64 << 20, lineLength: Int = 4000) -> SSECorpus {
        var out: [UInt8] = []
        out.reserveCapacity(size + size / lineLength * 8 + 16)
        let line = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "w"), count: lineLength) + [0x0A]
        var dataBytes = 0
        while dataBytes + lineLength + 1 <= size {
            out += line
            dataBytes += lineLength + (dataBytes == 0 ? 0 : 1)
        }
        out.append(0x0A)
        return SSECorpus(bytes: out, events: 1, dataBytes: dataBytes)
    }

    /// 256 events of one ~4 KiB `data:` line each (JSON-like ASCII; every 4th event holds a
    /// few multibyte characters near its end), 1 MiB in all: small enough to stay in cache.
    static func hot4K(events count: Int = 256) -> SSECorpus {
        var rng = BenchmarkRandom(seed: 0x4C0DE)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ,:{}".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 4100)
        var dataBytes = 0
        for i in 0..<count {
            var line = (0..<4080).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }
            if i % 4 == 3 { line.replaceSubrange(4000..<4012, with: Array("日本語 ok".utf8)) }
            out += Array("data: ".utf8) + line + [0x0A, 0x0A]
            dataBytes += line.count
        }
        return SSECorpus(bytes: out, events: count, dataBytes: dataBytes)
    }
}
