#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The "Your Own Protocol" article's Phoenix channel client, against a Phoenix server played
/// on the embedded stack (the `Phoenix.Socket.V2.JSONSerializer` wire format): the join is
/// answered before anything else and never delivered, the heartbeat goes out every 30 s and
/// its answers are consumed, a push queued while down goes out after the next join, and the
/// rejoin asks for what was missed since the last processed message.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedPhoenixChannelTests {
    static let topic = "room:lobby"

    /// The article's configuration, on an embedded client.
    static func client() throws -> EmbeddedClient {
        try EmbeddedClient("ws://phoenix.test/socket/websocket?vsn=2.0.0") { configuration in
            configuration.sendPolicy = .queue()
            configuration.heartbeat = .application(every: .seconds(30), .init(
                payload: .text(#"[null,"hb","phoenix","heartbeat",{}]"#),
                isReply: { $0.text?.hasPrefix(#"[null,"hb","phoenix","phx_reply""#) == true }))
            configuration.messageID = { message in
                guard let text = message.text, let range = text.range(of: #""id":""#) else { return nil }
                return String(text[range.upperBound...].prefix { $0 != "\"" })
            }
            configuration.onOpen = { context in
                let ref = "join-\(context.attempt)"
                let since = context.cursor.map { #"{"since":"\#($0)"}"# } ?? "{}"
                try await context.send(.text(#"["\#(ref)","\#(ref)","\#(topic)","phx_join",\#(since)]"#))
                let reply = try await context.receive { $0.text?.hasPrefix(#"["\#(ref)","\#(ref)""#) == true }
                guard reply.text?.contains(#""status":"ok""#) == true else { throw RealtimeError(.unauthorized) }
            }
        }
    }

    static func broadcast(_ id: Int) -> String {
        #"[null,null,"\#(topic)","new_msg",{"id":"\#(id)","body":"message \#(id)"}]"#
    }

    @Test func joinHeartbeatPushAndRejoinFromTheCursor() async throws {
        let t = try Self.client()
        let rec = EventRecorder(t.client)
        let pushed = Task { try await t.client.send(.text(#"["join-1","7","room:lobby","new_msg",{"body":"hi"}]"#)) }
        await t.waitForState("attempt 1") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.webSocket(0))
        first.accept()
        _ = try await Self.waitForJoin(first, t)
        #expect(first.texts == [#"["join-1","join-1","room:lobby","phx_join",{}]"#], "the join goes first")
        first.sendText(#"["join-1","join-1","\#(Self.topic)","phx_reply",{"status":"ok","response":{}}]"#)
        try await pushed.value
        t.run()
        #expect(first.texts.last == #"["join-1","7","room:lobby","new_msg",{"body":"hi"}]"#, "the queued push follows the join")
        for id in 1...3 { first.sendText(Self.broadcast(id)) }
        await rec.waitFor(4)
        t.advance(by: .seconds(30))
        #expect(first.texts.last == #"[null,"hb","phoenix","heartbeat",{}]"#)
        first.sendText(#"[null,"hb","phoenix","phx_reply",{"status":"ok","response":{}}]"#)
        first.reset()
        await t.waitOutTheBackoff()
        await t.waitForState("attempt 2") { $0 == .connecting(attempt: 2) }
        let second = try #require(t.webSocket(1))
        second.accept()
        _ = try await Self.waitForJoin(second, t)
        #expect(second.texts == [#"["join-2","join-2","room:lobby","phx_join",{"since":"3"}]"#], "the rejoin resumes after 3")
        second.sendText(#"["join-2","join-2","\#(Self.topic)","phx_reply",{"status":"ok","response":{}}]"#)
        second.sendText(Self.broadcast(4))
        await rec.waitFor(8)
        let summary = rec.events.map(\.short).joined(separator: " ")
        #expect(!summary.contains("phx_reply") && !summary.contains("heartbeat"), "replies are never delivered: \(summary)")
        #expect(rec.events.compactMap { if case .event(let m) = $0 { m.id } else { nil } } == ["1", "2", "3", "4"])
        t.client.close()
    }

    @Test func aRefusedJoinFailsTheAttemptAndIsRetried() async throws {
        let t = try Self.client()
        let rec = EventRecorder(t.client)
        await t.waitForState("attempt 1") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.webSocket(0))
        first.accept()
        _ = try await Self.waitForJoin(first, t)
        first.sendText(#"["join-1","join-1","\#(Self.topic)","phx_reply",{"status":"error","response":{"reason":"unauthorized"}}]"#)
        while !first.isClosed {
            await t.loop.waitForWork()  // the hook's failure closes the connection
            t.run()
            first.read()
        }
        await rec.waitFor(1)
        #expect(rec.summary == "error(open_hook_failed,retry)")
        #expect(rec.events.first?.errorEvent?.error.underlying?.code == .unauthorized)
        t.client.close()
    }

    /// Waits until the hook's join frame is written (the hook runs in a task of its own and
    /// queues the frame on the loop).
    static func waitForJoin(_ server: EmbeddedWebSocketServer, _ t: EmbeddedClient) async throws -> Bool {
        while !server.texts.contains(where: { $0.contains("phx_join") }) {
            await t.loop.waitForWork()
            t.run()
        }
        return true
    }
}
#endif
