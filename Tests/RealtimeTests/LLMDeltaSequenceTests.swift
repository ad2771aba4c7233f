import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestServer
import Testing

/// `client.deltas(format:)` against the test server's fake LLM endpoints on loopback: a reply
/// over a socket, as the server saw its request. How replies end and fail, with the same
/// replies, is on the embedded stack (`EmbeddedLLMDeltaSequenceTests`, `EmbeddedLLMTests`).
@Suite(.serialized, .timeLimit(.minutes(1))) struct LLMDeltaSequenceTests {
    static let body = Array(#"{"model":"test-model","stream":true,"messages":[{"role":"user","content":"hi"}]}"#.utf8)

    /// A finite LLM client for the format named in the path (its terminator).
    static func client(_ server: TestServer, _ pathAndQuery: String) throws -> RealtimeClient {
        let terminator = pathAndQuery.hasPrefix("/llm/anthropic") ? AnthropicMessagesDecoder.terminator : OpenAIChatDecoder.terminator
        var configuration = RealtimeClient.Configuration.llm(body: body, terminator: terminator)
        configuration.connectTimeout = .seconds(5)
        return try RealtimeClient(url: server.url(pathAndQuery), configuration: configuration)
    }

    static func collect<D: LLMStreamDecoder>(_ client: RealtimeClient, _ format: D) async -> [LLMDelta] {
        var deltas: [LLMDelta] = []
        for await delta in client.deltas(format: format) { deltas.append(delta) }
        return deltas
    }

    static func server() throws -> TestServer {
        let server = TestServer()
        try server.start()
        return server
    }

    @Test(arguments: ["openai", "anthropic"]) func textReplyCutAcrossReadsArrivesWhole(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let client = try Self.client(server, "/llm/\(format)?split=1")
        let deltas = format == "openai" ? await Self.collect(client, .openAI) : await Self.collect(client, .anthropic)
        LLMDeltaSequenceTestsSupport.expectWholeTextReply(deltas, format: format)
        let requests = server.requests(path: "/llm/\(format)")
        #expect(requests.count == 1)
        #expect(requests.first?.method == "POST")
        #expect(requests.first?.body == Self.body)
        #expect(requests.first?.headers["Content-Type"] == "application/json")
    }
}
