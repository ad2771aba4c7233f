#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// `deltas(format: .openAIRealtime)` over the production WebSocket connection on the
/// embedded stack, after the preset's handshake: an `error` event ends one reply and not the
/// session, a message the decoder rejects ends the session's deltas and closes it, and the
/// preset does not reconnect after a cut.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedOpenAIRealtimeDeltaTests {
    /// The first attempt's server, once the handshake configured the session.
    static func configuredSession(_ t: EmbeddedClient) async throws -> EmbeddedWebSocketServer {
        let server = try await t.webSocketAttempt(1)
        server.accept()
        server.sendText(EmbeddedOpenAIRealtimeTests.created)
        await EmbeddedClientOpenHookTests.read(1, on: server, t)
        server.sendText(EmbeddedOpenAIRealtimeTests.updated)
        await t.waitForState("open") { if case .open = $0 { true } else { false } }
        return server
    }

    /// The session's deltas, read until the first reply's finish.
    static func readingOneReply(_ t: EmbeddedClient) -> Task<[LLMDelta], Never> {
        Task {
            var deltas: [LLMDelta] = []
            for await delta in t.client.deltas(format: .openAIRealtime) {
                deltas.append(delta)
                if case .finish = delta { break }
            }
            return deltas
        }
    }

    static let refused = #"{"type":"error","event_id":"event_9","error":{"type":"invalid_request_error","code":"unknown_parameter","message":"Unknown parameter: 'foo'.","param":"foo","event_id":null}}"#

    /// An `error` event is a `stream_error` delta, and the session's next reply still arrives on the same connection.
    @Test func anErrorEventEndsOneReplyNotTheSession() async throws {
        let t = try EmbeddedOpenAIRealtimeTests.client()
        defer { t.client.close() }
        let reading = EmbeddedOpenAIRealtimeDeltaTests.readingOneReply(t)
        let server = try await Self.configuredSession(t)
        server.sendText(Self.refused)
        EmbeddedOpenAIRealtimeTests.reply("HI", on: server)
        let deltas = await t.pumping { await reading.value }
        guard case .error(let error) = deltas.first else { Issue.record("no error delta first: \(deltas)"); return }
        #expect(error.code == .streamError)
        #expect(error.detail == "openai-realtime unknown_parameter")
        #expect(Array(deltas.dropFirst()) == [.text("HI"), .finish("completed")])
        #expect(t.connectionCount == 1)
    }

    /// A message the decoder rejects ends the session's deltas with `protocol_violation`, and the client closes the session.
    @Test func aRejectedMessageEndsTheSessionAndClosesIt() async throws {
        let t = try EmbeddedOpenAIRealtimeTests.client()
        let reading = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, .openAIRealtime) }
        let server = try await Self.configuredSession(t)
        server.sendText("<html>")
        EmbeddedOpenAIRealtimeTests.reply("HI", on: server)
        let deltas = await t.pumping { await reading.value }
        guard case .error(let error) = deltas.last, deltas.count == 1 else { Issue.record("expected one error delta: \(deltas)"); return }
        #expect(error.code == .protocolViolation)
        await EmbeddedClientOpenHookTests.closedByTheClient(server, t)
        #expect(server.closeFrame != nil, "the client closed the session")
        #expect(t.connectionCount == 1)
    }

    /// The preset does not reconnect: a session cut after it opened ends the deltas with the cut, not retried.
    @Test func aCutSessionIsNotReconnected() async throws {
        let t = try EmbeddedOpenAIRealtimeTests.client()
        let reading = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, .openAIRealtime) }
        let server = try await Self.configuredSession(t)
        EmbeddedOpenAIRealtimeTests.reply("HI", on: server)
        server.reset()
        let deltas = await t.pumping { await reading.value }
        #expect(Array(deltas.prefix(2)) == [.text("HI"), .finish("completed")])
        guard case .error(let error) = deltas.last, deltas.count == 3 else { Issue.record("expected the cut last: \(deltas)"); return }
        #expect(error.code == .network, "\(error)")
        t.run()
        #expect(t.connectionCount == 1 && t.loop.pendingTimerCount == 0, "no second session")
    }
}
#endif
