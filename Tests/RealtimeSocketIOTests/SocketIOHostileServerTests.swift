import Foundation
import Realtime
import RealtimeSocketIO
import RealtimeTestSupport
import Testing

/// Servers that break Engine.IO or Socket.IO (`Tests/Peers/socketio_hostile.py`, on the
/// `websockets` library) against the real client and transport: each failure is typed, what
/// can be retried is retried with backoff (never a storm), nothing is delivered twice.
@Suite("Socket.IO hostile servers", .timeLimit(.minutes(3)), .serialized)
struct SocketIOHostileServerTests {
    static func client(_ peer: PythonPeer, _ name: String, configure: (inout SocketIOClient.Configuration) -> Void = { _ in }) throws -> SocketIOClient {
        var c = SocketIOClient.Configuration()
        c.path = "/\(name)/socket.io/"
        c.client.backoff = .exponential(initial: .milliseconds(200), maximum: .seconds(1), jitter: .none)
        c.client.networkMonitor = nil
        configure(&c)
        return try SocketIOClient(url: peer.url(scheme: "ws"), configuration: c)
    }

    /// The first disconnection of `socket`, skipping its connections.
    static func firstEnd(_ socket: SocketIOClient) async -> SocketIODisconnection? {
        for await event in socket.events {
            if case .disconnected(let d) = event { return d }
        }
        return nil
    }

    @Test("an unknown Engine.IO type, an unknown Socket.IO type, a stray binary: protocol_violation, then a reconnect", arguments: ["unknown", "badsio", "stray"])
    func violations(name: String) async throws {
        let peer = try await PythonPeer.start(script: "socketio_hostile.py")
        defer { peer.terminate() }
        let socket = try Self.client(peer, name)
        let end = await Self.firstEnd(socket)
        #expect(end?.error?.code == .connectionLost)
        #expect(end?.error?.underlying?.code == .protocolViolation)
        #expect(end?.willReconnect == true)
        _ = try await socket.realtime.waitUntilOpen(timeout: .seconds(30))
        #expect(socket.realtime.statistics.attempts >= 2)
        await socket.close()
        await peer.stop()
    }

    @Test("1000 attachments announced: message_too_large, and the client stops (the same packet would come back)")
    func attachmentFlood() async throws {
        let peer = try await PythonPeer.start(script: "socketio_hostile.py")
        defer { peer.terminate() }
        let socket = try Self.client(peer, "attachments")
        let end = await Self.firstEnd(socket)
        #expect(end?.error?.underlying?.code == .messageTooLarge)
        #expect(end?.willReconnect == false)
        await peer.stop()
    }

    @Test("no open packet, or no CONNECT answer: open_hook_failed at onOpenTimeout, retried with backoff, never a storm", arguments: ["noopen", "mute"])
    func neverAnswers(name: String) async throws {
        let peer = try await PythonPeer.start(script: "socketio_hostile.py")
        defer { peer.terminate() }
        let socket = try Self.client(peer, name) { $0.client.onOpenTimeout = .milliseconds(300) }
        // Every new attempt comes after a wait: the hook's timeout, then a backoff.
        var waitedBefore: [Bool] = []
        var waited = false
        for await state in socket.realtime.stateChanges {
            switch state {
            case .waitingToRetry: waited = true
            case .connecting(let attempt) where attempt > 1:
                waitedBefore.append(waited)
                waited = false
            default: break
            }
            if waitedBefore.count == 2 { break }
        }
        #expect(waitedBefore == [true, true], "attempts are spaced by a backoff, never a storm")
        #expect(socket.realtime.statistics.errorsByClass[.openHook, default: 0] >= 2)
        #expect(socket.realtime.statistics.connections == 0, "the connection never became ready")
        socket.realtime.close()
        await peer.stop()
    }

    @Test("a server that never pings: heartbeat_timeout after pingInterval + pingTimeout, then a reconnect")
    func neverPings() async throws {
        let peer = try await PythonPeer.start(script: "socketio_hostile.py")
        defer { peer.terminate() }
        let socket = try Self.client(peer, "silent")
        let end = await Self.firstEnd(socket)
        #expect(end?.error?.underlying?.code == .heartbeatTimeout)
        #expect(end?.willReconnect == true)
        await socket.close()
        await peer.stop()
    }

    @Test("an ack for an id never sent, and a second ack for one id: counted, ignored, the first answer kept")
    func strayAcks() async throws {
        let peer = try await PythonPeer.start(script: "socketio_hostile.py")
        defer { peer.terminate() }
        let socket = try Self.client(peer, "acks")
        _ = try await socket.realtime.waitUntilOpen(timeout: .seconds(30))
        let answer = try await socket.emitWithAck("question")
        #expect(try answer.decode(String.self) == "first")
        for await event in socket.events {
            if case .event(let message) = event, message.name == "after" { break }
        }
        #expect(socket.unmatchedAcks == 2, "4399 and the second answer")
        await socket.close()
        await peer.stop()
    }
}
