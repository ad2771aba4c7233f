import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestServer

/// The LLM kit: how fast the wire-format decoders turn chunks into deltas, against a bare
/// `JSONDecoder` decoding the same chunks into plain mirrors of the wire objects; and how
/// many batches the UI-rate adapter delivers for realistic token streams.
///
/// - `openai-decode`, `anthropic-decode`, `responses-decode`, `gemini-decode`: 40 replies of
///   500 word-sized text deltas (every fourth with a tool call; for Responses and Gemini,
///   another fourth with 20 reasoning fragments first), decoded message by message (`items` =
///   deltas produced; the `JSONDecoder` figure is chunks per second; `vs JSONDecoder` > 1
///   means faster than the bare decode). Timed alternately so the ratio survives a loaded
///   machine.
/// - `realtime-decode`: the same 40 replies as the responses of one OpenAI Realtime session
///   over WebSocket (every fourth an audio reply: a 4,800-byte audio delta, base64 decoded,
///   every ten transcript deltas), against the bare `JSONDecoder` decode of the same events
///   (which leaves the audio in base64).
/// - `responses-cursor`: the Responses resume cursor taken after every message of the same
///   corpus (what the client's I/O thread does per message), against the bare `JSONDecoder`
///   decode of the same messages.
/// - `coalesce-*`: 2,000-token streams at several paces and burst shapes run through the
///   adapter's state machine with a consumer that renders for 2 ms after each batch:
///   events in, batches out, the shortest gap between batches (the flush at the end aside),
///   the largest delay the batching added to a token.
/// - `coalesce-loopback`: a real reply from the test server (600 deltas about 2 ms apart)
///   through `client.deltas(format:).coalesced()` at the default 1/30 s.
/// - `tool-calls-N`: one OpenAI reply with N tool calls (10k, 100k, 1M; the counts from
///   `RT_BENCH_TOOL_CALLS`, comma-separated), four open at a time, each in three chunks
///   (id and name, two argument fragments), decoded and applied to an `LLMTranscript`,
///   then the finish: `items` = calls; µs per call stays flat when the cost is linear.
enum LLMBenchmarks {
    static let suite = BenchmarkSuite(name: "llm", benchmarks: [
        Benchmark(name: "openai-decode") {
            [decode("openai-decode", .openAI(), OpenAIChatDecoder(), mirror: LLMWireMirror.OpenAIChunk.self)]
        },
        Benchmark(name: "anthropic-decode") {
            [decode("anthropic-decode", .anthropic(), AnthropicMessagesDecoder(), mirror: LLMWireMirror.AnthropicEvent.self)]
        },
        Benchmark(name: "responses-decode") {
            [decode("responses-decode", .responses(), OpenAIResponsesDecoder(), mirror: LLMWireMirror.ResponsesEvent.self)]
        },
        Benchmark(name: "gemini-decode") {
            [decode("gemini-decode", .gemini(), GeminiDecoder(), mirror: LLMWireMirror.GeminiChunk.self)]
        },
        Benchmark(name: "realtime-decode") {
            [decode("realtime-decode", .realtime(), OpenAIRealtimeDecoder(), mirror: LLMWireMirror.RealtimeEvent.self)]
        },
        Benchmark(name: "responses-cursor") { [responsesCursor(.responses())] },
        Benchmark(name: "coalesce") { CoalescingSimulation.scenarios.map(coalesce) },
        Benchmark(name: "coalesce-loopback") { [try coalesceLoopback()] },
        Benchmark(name: "tool-calls") { toolCallCounts.map(toolCalls) },
    ])

    // MARK: Tool calls

    static var toolCallCounts: [Int] {
        let given = ProcessInfo.processInfo.environment["RT_BENCH_TOOL_CALLS"]?.split(separator: ",").compactMap { Int($0) }
        return given.flatMap { $0.isEmpty ? nil : $0 } ?? [10_000, 100_000, 1_000_000]
    }

    /// The chunk of call `call`'s fragment `piece` (0: id and name; 1, 2: arguments).
    static func toolCallChunk(_ call: Int, _ piece: Int) -> Message {
        let fields = piece == 0
            ? #""id":"call_\#(call)","type":"function","function":{"name":"tool_\#(call % 7)","arguments":"{\"n\":"}"#
            : #""function":{"arguments":"\#(piece == 1 ? String(call) : "}")"}"#
        return .sse(type: "message", data: #"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":\#(call),\#(fields)}]},"finish_reason":null}]}"#, id: "")
    }

    @inline(never)
    static func runToolCalls(_ calls: Int) -> (completed: Int, bytes: Int) {
        var decoder = OpenAIChatDecoder()
        var transcript = LLMTranscript()
        var deltas: [LLMDelta] = []
        var bytes = 0
        for window in stride(from: 0, to: calls, by: 4) {
            for piece in 0..<3 {
                for call in window..<min(window + 4, calls) {
                    let message = toolCallChunk(call, piece)
                    bytes += message.payloadByteCount
                    deltas.removeAll(keepingCapacity: true)
                    do { try decoder.decode(message, into: &deltas) } catch { return (-1, bytes) }
                    transcript.apply(contentsOf: deltas)
                }
            }
        }
        deltas.removeAll(keepingCapacity: true)
        let finish = Message.sse(type: "message", data: #"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#, id: "")
        do { try decoder.decode(finish, into: &deltas) } catch { return (-1, bytes) }
        let completed = transcript.apply(contentsOf: deltas).count
        let whole = transcript.toolCalls.count == calls && transcript.toolCalls.last?.arguments == #"{"n":\#(calls - 1)}"#
        return (whole ? completed : -1, bytes)
    }

    static func toolCalls(_ calls: Int) -> Measurement {
        let cpuStart = Timing.threadCPUTime()
        let (seconds, result) = Timing.best(1) { runToolCalls(calls) }
        let cpu = Timing.threadCPUTime() - cpuStart
        var m = Measurement(name: "llm/tool-calls-\(calls)", bytes: result.bytes, items: calls, seconds: seconds)
        m.extra = [("µs/call", seconds / Double(calls) * 1e6), ("CPU s", cpu)]
        m.goals = [("≤ 100 µs per call, flat in N (linear)", seconds / Double(calls) * 1e6 <= 100)]
        m.correct = result.completed == calls
        if !m.correct { m.note = "expected \(calls) complete calls, got \(result.completed)" }
        return m
    }

    // MARK: Decoding

    @inline(never)
    static func decodeAll<D: LLMStreamDecoder>(_ corpus: LLMCorpus, _ fresh: D) -> Int {
        var count = 0
        var deltas: [LLMDelta] = []
        for reply in corpus.replies {
            var decoder = fresh
            for message in reply {
                deltas.removeAll(keepingCapacity: true)
                do { try decoder.decode(message, into: &deltas) } catch { return -1 }
                count += deltas.count
            }
        }
        return count
    }

    @inline(never)
    static func plainDecodeAll<M: Decodable>(_ corpus: LLMCorpus, _: M.Type) -> Int {
        let decoder = JSONDecoder()
        var count = 0
        for reply in corpus.replies {
            for message in reply {
                guard let text = message.text, text != "[DONE]" else { continue }
                guard let chunk = try? decoder.decode(M.self, from: Data(text.utf8)) else { return -1 }
                Timing.blackHole(chunk)
                count += 1
            }
        }
        return count
    }

    static func decode<D: LLMStreamDecoder, M: Decodable>(_ name: String, _ corpus: LLMCorpus, _ fresh: D, mirror: M.Type) -> Measurement {
        let (ours, plain) = Timing.bestInterleaved(5, { decodeAll(corpus, fresh) }, { plainDecodeAll(corpus, M.self) })
        var m = Measurement(name: "llm/\(name)", bytes: corpus.bytes, items: ours.value, seconds: ours.seconds)
        let chunks = corpus.replies.flatMap { $0 }.filter { $0.text != "[DONE]" }.count
        m.extra = [
            ("chunks/s (M)", Double(corpus.messageCount) / ours.seconds / 1e6),
            ("JSONDecoder chunks/s (M)", Double(chunks) / plain.seconds / 1e6),
            ("vs JSONDecoder", plain.seconds / ours.seconds),
        ]
        m.goals = [("≥ 100k deltas/s (100× a fast model)", m.itemsPerSecond >= 1e5)]
        m.correct = ours.value == corpus.expectedDeltas && plain.value == chunks
        if !m.correct { m.note = "expected \(corpus.expectedDeltas) deltas / \(chunks) chunks, got \(ours.value) / \(plain.value)" }
        return m
    }

    @inline(never)
    static func cursorAll(_ corpus: LLMCorpus) -> Int {
        var count = 0
        for reply in corpus.replies {
            var cursor: String?
            for message in reply {
                cursor = OpenAIResponsesDecoder.resumeCursor(after: message, previous: cursor)
                if cursor != nil { count += 1 }
            }
            guard cursor?.hasSuffix(" \(reply.count - 1)") == true else { return -1 }
        }
        return count
    }

    static func responsesCursor(_ corpus: LLMCorpus) -> Measurement {
        let mirror = LLMWireMirror.ResponsesEvent.self
        let (ours, plain) = Timing.bestInterleaved(5, { cursorAll(corpus) }, { plainDecodeAll(corpus, mirror) })
        var m = Measurement(name: "llm/responses-cursor", bytes: corpus.bytes, items: ours.value, seconds: ours.seconds)
        m.extra = [
            ("messages/s (M)", Double(corpus.messageCount) / ours.seconds / 1e6),
            ("ns/message", ours.seconds / Double(corpus.messageCount) * 1e9),
            ("vs JSONDecoder", plain.seconds / ours.seconds),
        ]
        m.goals = [("faster than decoding the message", plain.seconds > ours.seconds)]
        m.correct = ours.value == corpus.messageCount
        if !m.correct { m.note = "expected a cursor after each of \(corpus.messageCount) messages, got \(ours.value)" }
        return m
    }

    // MARK: Coalescing

    static func coalesce(_ scenario: CoalescingSimulation.Scenario) -> Measurement {
        let (seconds, result) = Timing.best(3) { CoalescingSimulation.run(scenario) }
        var m = Measurement(name: "llm/coalesce-\(scenario.name)", bytes: result.textBytes, items: result.eventsIn, seconds: seconds)
        m.extra = [
            ("events in", Double(result.eventsIn)), ("batches out", Double(result.batchesOut)),
            ("events/batch", Double(result.eventsIn) / Double(result.batchesOut)),
            ("batches/s", Double(result.batchesOut) / result.streamSeconds),
            ("min gap ms", result.minGapSeconds * 1000),
            ("max added delay ms", result.maxDelaySeconds * 1000),
        ]
        m.goals = [("batches ≥ 1/30 s apart but the last", result.minGapSeconds >= CoalescingSimulation.seconds(CoalescingSimulation.interval))]
        m.correct = result.problems.isEmpty
        m.note = result.problems.joined(separator: "; ")
        return m
    }

    static func coalesceLoopback() throws -> Measurement {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let deltasIn = 600
        let url = server.url("/llm/openai?count=\(deltasIn)&interval_ms=2")
        let client = try RealtimeClient(url: url, configuration: .llm(body: Array("{}".utf8)))
        let start = ContinuousClock.now
        let (batches, text) = WebSocketEchoBenchmarks.blocking {
            var batches = 0
            var text = ""
            for await batch in client.deltas(format: .openAI).coalesced() {
                batches += 1
                text += batch.compactMap(\.text).joined()
            }
            return (batches, text)
        }
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // 600 text deltas, the finish and the usage.
        let eventsIn = deltasIn + 2
        var m = Measurement(name: "llm/coalesce-loopback", bytes: text.utf8.count, items: eventsIn, seconds: seconds)
        m.extra = [
            ("events in", Double(eventsIn)), ("batches out", Double(batches)),
            ("events/batch", Double(eventsIn) / Double(batches)), ("batches/s", Double(batches) / seconds),
        ]
        m.correct = text == LLMReplyOptions(format: .openAI, query: ["count": "\(deltasIn)"]).text()
        if !m.correct { m.note = "the coalesced text differs from the reply" }
        return m
    }
}
