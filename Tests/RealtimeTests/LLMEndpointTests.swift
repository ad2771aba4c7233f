import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// The test server's fake LLM endpoints in the two newer formats and with reasoning, read by
/// the real client and the SDK's decoders over loopback: each reply is what its options say,
/// in every format; the Responses background endpoints (a replay after a sequence number, a
/// reply that stays queued, a cut) behave as the API documents.
@Suite(.serialized, .timeLimit(.minutes(1))) struct LLMEndpointTests {
    static let body = Array(#"{"model":"test-model","stream":true,"input":"hi"}"#.utf8)

    static func configuration(_ terminator: StreamTerminator?, method: String = "POST") -> RealtimeClient.Configuration {
        var configuration = RealtimeClient.Configuration.llm(body: body, terminator: terminator)
        configuration.connectTimeout = .seconds(5)
        if method == "GET" {
            configuration.method = "GET"
            configuration.body = nil
        }
        return configuration
    }

    /// The transcript of the reply at `pathAndQuery`, decoded in the path's format.
    static func transcript(_ server: TestServer, _ pathAndQuery: String, method: String = "POST") async throws -> LLMTranscript {
        var transcript = LLMTranscript()
        let url = server.url(pathAndQuery)
        switch pathAndQuery.split(separator: "?")[0] {
        case "/llm/openai": transcript.apply(contentsOf: await collect(url, .openAI))
        case "/llm/anthropic": transcript.apply(contentsOf: await collect(url, .anthropic))
        case "/llm/gemini": transcript.apply(contentsOf: await collect(url, .gemini))
        default: transcript.apply(contentsOf: await collect(url, .openAIResponses, method: method))
        }
        return transcript
    }

    /// The reply's deltas. A reply that brings none (a hang ended by the time limit, or every
    /// attempt failing) records the client's debug log, so that a failure says where it stopped.
    static func collect<D: LLMStreamDecoder>(_ url: URL, _ format: D, method: String = "POST") async -> [LLMDelta] {
        var configuration = configuration(D.terminator, method: method)
        let logs = LogCapture()
        configuration.logHandler = logs
        configuration.logLevel = .debug
        guard let client = try? RealtimeClient(url: url, configuration: configuration) else { return [] }
        let deltas = await LLMDeltaSequenceTests.collect(client, format)
        if deltas.isEmpty { Issue.record("no delta from \(url.path); the client's log:\n\(logs.lines.joined(separator: "\n"))\nthe sockets on its port:\n\(ProcessResources.tcpTable(port: UInt16(url.port ?? 0)))") }
        return deltas
    }

    static func server() throws -> TestServer { try LLMDeltaSequenceTests.server() }

    static let reasoning = LLMReplyOptions.reasoningPieces.joined()

    /// `reasoning=1` in every format: the reasoning stays apart from the text, in the kind
    /// the format has (raw text for chat completions and Anthropic, a summary for Responses
    /// and Gemini), with Anthropic's and Gemini's signature.
    @Test(arguments: ["openai", "anthropic", "responses", "gemini"]) func reasoningStaysApartInEveryFormat(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let transcript = try await Self.transcript(server, "/llm/\(format)?reasoning=1&split=1")
        #expect(transcript.error == nil)
        #expect(transcript.text == LLMReplyOptions(format: .openAI).text())
        let signature = format == "anthropic" || format == "gemini" ? LLMReplyOptions.reasoningSignature : ""
        let summary = format == "responses" || format == "gemini"
        #expect(transcript.reasoning == [
            LLMReasoning(index: 0, text: summary ? "" : Self.reasoning, summary: summary ? Self.reasoning : "", signature: signature)
        ])
        #expect(transcript.finishReason == LLMDeltaSequenceTestsSupport.finishReason(format))
        #expect(transcript.usage?.inputTokens == 12)
        #expect(transcript.unrecognizedEvents == 0)
    }

    @Test(arguments: ["responses", "gemini"]) func toolCallsTextAndErrorsInTheNewFormats(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let tools = try await Self.transcript(server, "/llm/\(format)?reply=tools")
        #expect(tools.text == LLMReplyOptions.toolPreamble)
        #expect(tools.toolCalls.map(\.name) == LLMReplyOptions.toolCalls.map(\.name))
        #expect(tools.toolCalls.allSatisfy { $0.isComplete })
        // Gemini sends each call's args as an object: the decoder re-encodes it.
        let arguments = LLMReplyOptions.toolCalls.map { $0.arguments.joined() }
        #expect(tools.toolCalls.map(\.arguments) == (format == "gemini" ? arguments.map { $0.replacingOccurrences(of: ": ", with: ":") } : arguments))
        let unknown = try await Self.transcript(server, "/llm/\(format)?unknown=1")
        #expect(unknown.unrecognizedEvents == 1)
        #expect(unknown.text == LLMReplyOptions(format: .openAI).text())
        let failed = try await Self.transcript(server, "/llm/\(format)?reply=error")
        #expect(failed.text == LLMReplyOptions.pieces.prefix(3).joined())
        #expect(failed.error?.code == .streamError)
        #expect(failed.error?.detail == (format == "gemini" ? "gemini UNAVAILABLE" : "openai-responses server_error"))
    }

    /// A reply cut after event N, resumed with `GET /v1/responses/{id}?stream=true&
    /// starting_after=N`: the replay starts after N, so the two parts make the whole reply.
    @Test func aCutReplyResumesAfterItsSequenceNumber() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let query = "count=10&cut_after=6"
        var transcript = LLMTranscript()
        let first = await Self.collect(server.url("/v1/responses?\(query)"), .openAIResponses)
        // created, in_progress, item, part, then the deltas numbered 4, 5, 6; then the drop.
        #expect(first.compactMap(\.text) == Array(LLMReplyOptions.pieces.prefix(3)))
        guard case .error(let cut)? = first.last else {
            Issue.record("the cut is not an error: \(first)")
            return
        }
        #expect(cut.code != .truncated)
        transcript.apply(contentsOf: first.dropLast())
        let id = LLMReplyOptions(format: .responses, query: ["count": "10", "cut_after": "6"]).responseID
        let rest = await Self.collect(server.url("/v1/responses/\(id)?stream=true&starting_after=6"), .openAIResponses, method: "GET")
        transcript.apply(contentsOf: rest)
        #expect(transcript.error == nil)
        #expect(transcript.text == LLMReplyOptions(format: .openAI).text())
        #expect(transcript.finishReason == "completed")
        #expect(server.requests(path: "/v1/responses").map(\.method) == ["POST"])
        #expect(server.requests(path: "/v1/responses/\(id)").map(\.method) == ["GET"])
        // Every event of the replay has a sequence number above 6, in order, with no gap.
        var cursor = "\(id) 6"
        let client = try RealtimeClient(
            url: server.url("/v1/responses/\(id)?stream=true&starting_after=6"),
            configuration: Self.configuration(OpenAIResponsesDecoder.terminator, method: "GET"))
        var numbers: [Int] = []
        for await event in client.events {
            guard case .event(let message) = event else { continue }
            cursor = OpenAIResponsesDecoder.resumeCursor(after: message, previous: cursor) ?? cursor
            numbers.append(OpenAIResponsesDecoder.parseResumeCursor(cursor)?.sequenceNumber ?? -1)
        }
        #expect(numbers == Array(7..<(7 + numbers.count)) && numbers.count > 5)
        #expect(cursor.hasPrefix(id + " "))
    }

    /// `queued=1`: the reply says it is queued and then nothing comes while the connection
    /// lasts. An unknown id is 404.
    @Test func aQueuedReplyStaysQueuedAndAnUnknownIDIsNotFound() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let client = try RealtimeClient(url: server.url("/v1/responses?queued=1"), configuration: Self.configuration(OpenAIResponsesDecoder.terminator))
        var messages: [Message] = []
        var connectionsWhileQueued = 0
        for await event in client.events {
            guard case .event(let message) = event else { continue }
            messages.append(message)
            // Counted before the loop ends: leaving it ends the client's stream and its connection.
            if messages.count == 2 {
                connectionsWhileQueued = server.statistics.activeConnections
                break
            }
        }
        #expect(messages.map(\.type) == ["response.created", "response.queued"])
        #expect(messages.allSatisfy { $0.text?.contains(#""status":"queued""#) == true })
        var decoder = OpenAIResponsesDecoder()
        for message in messages { #expect(try decoder.decode(message) == []) }
        #expect(connectionsWhileQueued == 1)
        client.close()
        let missing = await Self.collect(server.url("/v1/responses/resp_zz?stream=true"), .openAIResponses, method: "GET")
        guard case .error(let error)? = missing.last else {
            Issue.record("\(missing)")
            return
        }
        #expect(error.code == .httpStatus)
        #expect(error.status == 404)
    }
}
