#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestSupport
import Testing

/// A `RealtimeClient` configured with `.openAIRealtime` against `Tests/Peers/openai_realtime.py`,
/// a Realtime API server whose every event, both ways, the `openai` SDK's own models check:
/// the handshake, a conversation of text, audio, a tool call and errors read with
/// `deltas(format: .openAIRealtime)`, in both the generally available and the beta names.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct OpenAIRealtimeTests {
    static let session = #"{"type":"realtime","instructions":"Shout."}"#
    static let betaSession = #"{"instructions":"Shout.","modalities":["text","audio"]}"#

    private func client(
        _ peer: PythonPeer, token: String? = "sk-test", session: String?, beta: Bool,
        _ configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> RealtimeClient {
        var c = try RealtimeClient.Configuration.openAIRealtime(
            bearerToken: token, session: session.map { Array($0.utf8) }, beta: beta)
        c.connectTimeout = .seconds(10)
        configure(&c)
        return try RealtimeClient(url: peer.url(scheme: "ws", path: "/v1/realtime?model=gpt-realtime"), configuration: c)
    }

    /// What the app sends after each reply, in order; nil ends the conversation.
    private static func next(after reply: Int, _ transcript: LLMTranscript) -> [OutboundMessage]? {
        switch reply {
        case 0: return [OpenAIRealtimeEvent.userMessage("audio: spoken words"), OpenAIRealtimeEvent.createResponse()]
        case 1: return [OpenAIRealtimeEvent.userMessage("weather"), OpenAIRealtimeEvent.createResponse()]
        case 2:
            guard let call = transcript.toolCalls.first else { return nil }
            return [OpenAIRealtimeEvent.functionCallOutput(callID: call.id, output: call.arguments), OpenAIRealtimeEvent.createResponse()]
        case 3: return [OpenAIRealtimeEvent.userMessage("fail"), OpenAIRealtimeEvent.createResponse()]
        case 4: return [.text(#"{"type":"no.such.event"}"#)]
        case 5:
            let audio = (0..<1_000).map { UInt8($0 % 256) }
            return [OpenAIRealtimeEvent.appendAudio(audio), OpenAIRealtimeEvent.commitAudio(), OpenAIRealtimeEvent.createResponse()]
        default: return nil
        }
    }

    /// The first message is sent while the connection opens: the outbox holds it until
    /// the handshake configured the session (the reply is in capitals, as the session's
    /// instructions say). Then each reply, ended by its finish or error, is answered with
    /// the next turn, on one connection.
    @Test(arguments: [false, true]) func aConversationOfTextAudioAToolCallAndErrors(beta: Bool) async throws {
        let peer = try await PythonPeer.start(script: "openai_realtime.py")
        defer { peer.terminate() }
        let client = try client(peer, session: beta ? Self.betaSession : Self.session, beta: beta) {
            $0.sendPolicy = .queue(maxMessages: 8, maxBytes: 1 << 20, timeout: .seconds(30))
        }
        // Sent while the client connects (iterating starts it): the outbox holds the messages
        // until the handshake is over.
        let first = Task {
            try await client.send(OpenAIRealtimeEvent.userMessage("hello Zürich 🌤"))
            try await client.send(OpenAIRealtimeEvent.createResponse())
        }
        var replies: [LLMTranscript] = []
        var transcript = LLMTranscript()
        for await delta in client.deltas(format: .openAIRealtime) {
            transcript.apply(delta)
            guard transcript.finishReason != nil || transcript.error != nil else { continue }
            replies.append(transcript)
            guard let turn = Self.next(after: replies.count - 1, transcript) else { break }
            transcript = LLMTranscript()
            for message in turn { try await client.send(message) }
        }
        client.close()
        try await first.value
        try #require(replies.count == 7)
        #expect(replies[0].text == "YOU SAID: HELLO ZÜRICH 🌤")
        #expect(replies[0].usage == LLMUsage(inputTokens: 11, outputTokens: 7, totalTokens: 18, cachedInputTokens: 2))
        #expect(replies[1].text == "spoken words")
        #expect(replies[1].audio == (0..<14_400).map { UInt8($0 % 256) })
        #expect(replies[2].toolCalls.map(\.name) == ["get_weather"])
        #expect(replies[2].toolCalls.map(\.arguments) == [#"{"city":"Paris"}"#])
        #expect(replies[3].text == "IT IS SUNNY IN PARIS.")
        #expect(replies[4].error?.code == .streamError)
        #expect(replies[4].error?.detail == "openai-realtime internal_error")
        #expect(replies[5].error?.detail == "openai-realtime invalid_event")
        #expect(replies[6].text == "YOU SAID: HEARD 1000 BYTES, SUM \((0..<1_000).reduce(0) { $0 + $1 % 256 } % 65_536)")
        #expect(replies.allSatisfy { $0.unrecognizedEvents == 0 })
    }

    /// A session the server refuses fails the handshake: `open_hook_failed` with the server's
    /// error beneath it, no `.open`, and no retry (a new session would be refused the same).
    @Test func aRefusedSessionFailsTheHandshake() async throws {
        let peer = try await PythonPeer.start(script: "openai_realtime.py")
        defer { peer.terminate() }
        let client = try client(peer, session: #"{"type":"realtime","instructions":"reject"}"#, beta: false)
        var events: [ClientEvent] = []
        for await event in client.events { events.append(event) }
        #expect(!events.contains { if case .open = $0 { true } else { false } })
        let errors = events.compactMap { if case .error(let e) = $0 { e } else { nil } }
        try #require(errors.count == 1)
        #expect(errors[0].error.code == .openHookFailed)
        #expect(errors[0].error.underlying?.detail == "openai-realtime invalid_value")
        #expect(errors[0].error.underlying?.bodyExcerpt == "The session configuration was rejected.")
        #expect(!errors[0].willRetry)
    }

    /// Without a token the server answers the upgrade with 401: `unauthorized`, not retried.
    @Test func aMissingTokenIsAnHTTPStatus() async throws {
        let peer = try await PythonPeer.start(script: "openai_realtime.py")
        defer { peer.terminate() }
        let client = try client(peer, token: nil, session: Self.session, beta: false)
        var last: LLMDelta?
        for await delta in client.deltas(format: .openAIRealtime) { last = delta }
        guard case .error(let error) = last else { Issue.record("no error: \(String(describing: last))"); return }
        #expect(error.code == .unauthorized)
        #expect(error.status == 401)
    }
}
#endif
