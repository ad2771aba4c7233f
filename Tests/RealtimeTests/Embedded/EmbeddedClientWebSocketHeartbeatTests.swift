#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `HeartbeatPolicy` through a `RealtimeClient` on a `ws://` URL: when pings go out, what
/// declares the connection dead, and what the user sees then.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientWebSocketHeartbeatTests {
    /// `whenIdle` sends no ping to a server that talks more often than the interval;
    /// `fixedInterval` pings every interval from the open whatever the traffic.
    @Test(arguments: [(HeartbeatPolicy.Mode.whenIdle, 0), (.fixedInterval, 3)])
    func pingsFollowTheMode(mode: HeartbeatPolicy.Mode, pings: Int) async throws {
        let (t, _, server) = try await EmbeddedClientWebSocketFrameTests.opened {
            $0.heartbeat = .ping(every: .seconds(10), missedLimit: 2, mode: mode)
        }
        defer { t.client.close() }
        for _ in 1...6 {
            t.advance(by: .seconds(5))
            server.sendText("tick")
        }
        #expect(server.pingCount == pings)
    }

    /// An application heartbeat nobody answers declares the connection dead `I × (N + 1)`
    /// after the last inbound byte: the client closes with 1001, reports `heartbeat_timeout`
    /// and retries.
    @Test func anUnansweredApplicationHeartbeatIsAHeartbeatTimeout() async throws {
        let (t, rec, server) = try await EmbeddedClientWebSocketFrameTests.opened {
            $0.heartbeat = .application(every: .seconds(10), missedLimit: 1, .text(ping: "hb", pong: "hb-ok"))
        }
        defer { t.client.close() }
        t.advance(by: .seconds(10))
        #expect(server.texts == ["hb"])
        t.advance(by: .milliseconds(9999))
        #expect(server.closeFrame == nil, "not before 20 s of silence")
        t.advance(by: .milliseconds(1))
        #expect(server.closeFrame?.code == 1001)
        await rec.waitFor("the error") { $0.errorEvent != nil }
        let error = try #require(rec.events.compactMap(\.errorEvent).first)
        #expect(error.error.code == .heartbeatTimeout && error.willRetry, "\(error)")
    }

    /// A JSON `pong` is recognised as the same JSON value (whitespace and member order do not
    /// matter): such a reply is consumed, and another JSON message is delivered.
    @Test func aJSONReplyIsRecognisedAsTheSameValue() async throws {
        let (t, rec, server) = try await EmbeddedClientWebSocketFrameTests.opened {
            $0.heartbeat = .application(every: .seconds(10), .text(ping: #"{"op":"ping"}"#, pong: #"{"op":"pong","v":1}"#))
        }
        defer { t.client.close() }
        t.advance(by: .seconds(10))
        #expect(server.texts == [#"{"op":"ping"}"#])
        server.sendText(#"{ "v" : 1, "op" : "pong" }"#)
        server.sendText(#"{"op":"pong","v":2}"#)
        await rec.waitFor(2)
        #expect(rec.summary == #"open(1) event({"op":"pong","v":2})"#)
    }

    /// A responder answers the server's application pings (consumed, never delivered), sends
    /// no ping of its own, and declares the connection dead `deadAfter` the last inbound byte.
    @Test func aResponderAnswersTheServersPingsAndBoundsItsSilence() async throws {
        let (t, rec, server) = try await EmbeddedClientWebSocketFrameTests.opened {
            $0.heartbeat = .responder(deadAfter: .seconds(30), answering: .text(ping: "2", pong: "3", answersServerPings: true))
        }
        defer { t.client.close() }
        t.advance(by: .seconds(20))
        server.sendText("2")
        server.sendText("data")
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(data)", "the server's ping is consumed")
        #expect(server.texts == ["3"])
        t.advance(by: .milliseconds(29999))
        #expect(server.closeFrame == nil, "alive until 30 s after the last byte")
        #expect(server.pingCount == 0 && server.texts == ["3"], "nothing of ours is sent")
        t.advance(by: .milliseconds(1))
        await rec.waitFor("the error") { $0.errorEvent != nil }
        #expect(rec.events.compactMap(\.errorEvent).first?.error.code == .heartbeatTimeout)
    }
}
#endif
