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
/// row, with the POSTs and GETs counted; and on scripted transports, cut at random points
/// under 1,000 seeds. Every delta arrives once, in order; the POST is never repeated.
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

    /// Scripted transports replay the same reply cut at 1 to 3 random points per seed: the
    /// deltas equal the uncut reply's, one POST, one GET per cut, each GET after the last
    /// sequence number delivered.
    @Test func randomCutsUnderAThousandSeedsLoseAndRepeatNothing() async throws {
        let events = Self.events.map { Self.message($0) }
        var decoder = OpenAIResponsesDecoder()
        let whole = events.flatMap { (try? decoder.decode($0)) ?? [] }
        var generator = SeededGenerator(seed: 29)
        for seed in 1...1000 {
            let count = Int.random(in: 1...3, using: &generator)
            let cuts = Set((0..<count).map { _ in Int.random(in: 0..<(events.count - 1), using: &generator) }).sorted()
            let deltas = try await Self.scripted(events, cuts: cuts)
            guard deltas == whole else {
                Issue.record("seed \(seed), cuts \(cuts): \(deltas.count) deltas for \(whole.count)")
                return
            }
        }
    }

    static func message(_ event: String) -> Message {
        let lines = event.split(separator: "\n")
        let type = String(lines[0].dropFirst("event: ".count))
        return .sse(type: type, data: String(lines[1].dropFirst("data: ".count)), id: "")
    }

    /// The reply over scripted transports, each request cut after the next of `cuts`.
    static func scripted(_ events: [Message], cuts: [Int]) async throws -> [LLMDelta] {
        let t = try TestClient("http://127.0.0.1:8080/v1/responses") {
            $0 = configuration()
            $0.networkMonitor = nil
        }
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, OpenAIResponsesDecoder()) }
        var next = 0
        for (n, cut) in (cuts + [events.count - 1]).enumerated() {
            if n > 0 { await t.advance(by: .milliseconds(100)) }
            let transport = try #require(await t.factory.transport(n))
            #expect(transport.request.method == (n == 0 ? "POST" : "GET"))
            if n > 0 { #expect(transport.request.url.query?.hasSuffix("starting_after=\(next - 1)") == true) }
            transport.open()
            transport.emit(contentsOf: events[next...cut].map { .message($0) })
            next = cut + 1
            if cut < events.count - 1 { transport.fail(RealtimeError(.network)) }
        }
        let deltas = await reply.value
        #expect(t.factory.count == cuts.count + 1)
        return deltas
    }
}
