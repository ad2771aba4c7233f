import Foundation
@testable import Realtime
import RealtimeLLM
@testable import RealtimeTestServer
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// A Responses reply started in background mode, cut and resumed with
/// `GET …/responses/{id}?stream=true&starting_after=N` (`ResumePlan.openAIResponses`):
/// against the test server on loopback, cut at every phase of the reply and three times in a
/// row, with the POSTs and GETs counted (random cuts under 1,000 seeds are on the embedded
/// stack: `EmbeddedLLMResumeTests`). Every delta arrives once, in order; the POST is never
/// repeated.
@Suite(.serialized, .timeLimit(.minutes(2))) struct LLMResumeTests {
    static let body = Array(#"{"model":"test-model","stream":true,"background":true,"input":"hi"}"#.utf8)
    static let reply = "reply=tools&reasoning=1"

    static func configuration() -> RealtimeClient.Configuration {
        var c = RealtimeClient.Configuration.llm(body: body, headers: ["Authorization": "Bearer sk-test"])
        c.connectTimeout = .seconds(5)
        c.backoff = .exponential(initial: .milliseconds(100), maximum: .milliseconds(200), jitter: .none)
        c.resume = .openAIResponses
        return c
    }

    static func collect(_ url: URL, _ configuration: RealtimeClient.Configuration = configuration()) async throws -> [LLMDelta] {
        let client = try RealtimeClient(url: url, configuration: configuration)
        var deltas: [LLMDelta] = []
        for await delta in client.deltas(format: .openAIResponses) { deltas.append(delta) }
        return deltas
    }

    /// The reply's events, as the server renders them (sequence number = position).
    static var events: [String] {
        LLMReplyRenderer(options: LLMReplyOptions(format: .responses, query: ["reply": "tools", "reasoning": "1"]), requestBody: body).events()
    }

    /// The sequence number of the first event of `type`.
    static func first(_ type: String) -> Int {
        events.firstIndex { $0.hasPrefix("event: \(type)\n") }!
    }

    /// Cut points, one per phase of the reply.
    static var phases: [(String, Int)] {
        [
            ("after response.created", 0),
            ("mid reasoning", first("response.reasoning_summary_text.delta")),
            ("mid text", first("response.output_text.delta") + 1),
            ("between output items", first("response.output_item.done")),
            ("mid function arguments", first("response.function_call_arguments.delta") + 1),
            ("just before response.completed", events.count - 2),
        ]
    }

    @Test func everyPhaseOfACutReplyIsResumedWithOneGet() async throws {
        let server = try LLMDeltaSequenceTests.server()
        defer { server.stop() }
        let whole = try await Self.collect(server.url("/v1/responses?\(Self.reply)"))
        #expect(whole.contains(.finish("completed")) && !whole.contains { if case .error = $0 { true } else { false } })
        for (phase, cut) in Self.phases {
            server.clearRequests()
            let deltas = try await Self.collect(server.url("/v1/responses?\(Self.reply)&cut_after=\(cut)"))
            #expect(deltas == whole, "cut \(phase) (after sequence number \(cut))")
            #expect(server.requests(path: "/v1/responses").count == 1, "one POST, cut \(phase)")
            let gets = server.requests.filter { $0.path.hasPrefix("/v1/responses/") }
            #expect(gets.count == 1 && gets.allSatisfy { $0.method == "GET" && $0.body.isEmpty }, "one GET, cut \(phase)")
            #expect(gets.first?.query["starting_after"] == "\(cut)", "cut \(phase)")
            #expect(gets.first?.headers["Authorization"] == "Bearer sk-test")
        }
    }

    @Test func aReplyCutThreeTimesArrivesWholeWithOnePost() async throws {
        let server = try LLMDeltaSequenceTests.server()
        defer { server.stop() }
        let whole = try await Self.collect(server.url("/v1/responses?\(Self.reply)"))
        server.clearRequests()
        let cuts = Self.phases.map(\.1).prefix(3).map(String.init).joined(separator: ",")
        let deltas = try await Self.collect(server.url("/v1/responses?\(Self.reply)&cut_after=\(cuts)"))
        #expect(deltas == whole)
        #expect(server.requests(path: "/v1/responses").count == 1)
        #expect(server.requests.filter { $0.path.hasPrefix("/v1/responses/") }.count == 3)
    }

    @Test func aReplyCutBeforeItsFirstEventIsNotRepeated() async throws {
        let server = try LLMDeltaSequenceTests.server()
        defer { server.stop() }
        let deltas = try await Self.collect(server.url("/v1/responses?\(Self.reply)&cut_after=-1"))
        guard case .error(let error) = deltas.last else { Issue.record("no error: \(deltas)"); return }
        #expect(error.code == .requestNotRepeatable && deltas.count == 1)
        #expect(server.requests(path: "/v1/responses").count == 1, "the POST is not repeated")
        #expect(server.requests.filter { $0.path.hasPrefix("/v1/responses/") }.isEmpty)
    }

    @Test func aReplyThatStaysQueuedEndsWithAClearError() async throws {
        let server = try LLMDeltaSequenceTests.server()
        defer { server.stop() }
        var configuration = Self.configuration()
        configuration.resume?.maxResumesWithoutProgress = 2
        let deltas = try await Self.collect(server.url("/v1/responses?queued=1&queued_replay=end&cut_after=1"), configuration)
        guard case .error(let error) = deltas.last else { Issue.record("no error: \(deltas)"); return }
        #expect(error.code == .truncated && error.detail?.contains("2 times in a row") == true, "\(error)")
        #expect(server.requests(path: "/v1/responses").count == 1)
        #expect(server.requests.filter { $0.path.hasPrefix("/v1/responses/") }.count == 2)
    }

    static func message(_ event: String) -> Message {
        let lines = event.split(separator: "\n")
        let type = String(lines[0].dropFirst("event: ".count))
        return .sse(type: type, data: String(lines[1].dropFirst("data: ".count)), id: "")
    }
}
