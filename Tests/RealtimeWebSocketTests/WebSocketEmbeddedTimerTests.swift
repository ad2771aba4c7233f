import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTesting
@testable import RealtimeWebSocket

/// Every timeout of the WebSocket connection on the embedded loop: time moves only when the
/// test moves it, so each deadline is hit exactly, never raced.
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedTimerTests {
    static func heartbeat(_ mode: HeartbeatPolicy.Mode, every interval: Duration = .seconds(10)) -> WebSocketOptions {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = .ping(every: interval, missedLimit: 2, mode: mode)
        return options
    }

    // MARK: - Handshake

    @Test func handshakeRequestAndFirstFrameAreTheGoldenBytes() async throws {
        let ws = EmbeddedWebSocket(seed: 19)
        ws.start()
        #expect(ws.stream.endpoint?.host == "example.test")
        #expect(ws.stream.endpoint?.port == 80)
        #expect(ws.stream.unreadBytes == 0, "nothing reaches the kernel before TCP is up")
        ws.stream.acceptConnection()
        let request = ws.stream.takeWritten()
        let golden = "GET /chat HTTP/1.1\r\nHost: example.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: RBpD7/J1QLw62cbXzU/bHQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        #expect(String(decoding: request, as: UTF8.self) == golden)
        ws.stream.feed(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(TestServerAccept.value(forKey: "RBpD7/J1QLw62cbXzU/bHQ=="))\r\n\r\n")
        let opened = ws.events().compactMap { event -> Int? in
            if case .opened(let info) = event { return info.status }
            return nil
        }
        #expect(opened == [101])
        try await ws.send(.text("hi"))
        // The first mask drawn from the same seed: 0x44 0x1A 0x43 0xEF.
        #expect(ws.stream.takeWritten() == [0x81, 0x82, 0x44, 0x1A, 0x43, 0xEF, 0x2C, 0x73])
    }

    @Test func framesBehindThe101AreDelivered() {
        let ws = EmbeddedWebSocket()
        ws.start()
        ws.stream.acceptConnection()
        ws.acceptHandshake(trailing: ws.serverFrame(text: "early"))
        #expect(ws.events().compactMap(\.text) == ["early"])
    }

    @Test func connectTimeoutEndsAnAttemptWhoseTCPNeverComesUp() {
        let ws = EmbeddedWebSocket { $0.connectTimeout = .seconds(10) }
        ws.start()
        ws.advance(by: .seconds(10) - .nanoseconds(1))
        #expect(ws.ended() == nil, "alive until the deadline")
        ws.advance(by: .nanoseconds(1))
        #expect(ws.ended()?.error?.code == .connectTimeout)
        #expect(ws.stream.closedByOwner)
        #expect(ws.loop.pendingTimerCount == 0, "an end leaves no timer armed")
    }

    @Test func connectTimeoutCoversTheHandshakeAnswer() {
        let ws = EmbeddedWebSocket { $0.connectTimeout = .seconds(10) }
        ws.start()
        ws.advance(by: .seconds(4))
        ws.stream.acceptConnection()
        ws.stream.feed("HTTP/1.1 101 Switching Protocols\r\n") // half a head, then silence
        ws.advance(by: .seconds(6) - .nanoseconds(1))
        #expect(ws.ended() == nil)
        ws.advance(by: .nanoseconds(1))
        let end = ws.ended()
        #expect(end?.error?.code == .connectTimeout)
        #expect(end?.requestWasDelivered == true, "the request reached the kernel")
    }

    // MARK: - Heartbeats

    @Test func whenIdleHeartbeatUnansweredEndsWithHeartbeatTimeout() {
        let ws = EmbeddedWebSocket(options: Self.heartbeat(.whenIdle))
        #expect(ws.open() != nil)
        var pings = 0
        for _ in 0..<3 {
            ws.advance(by: .seconds(10))
            pings += ws.clientFrames().filter(\.isPing).count
        }
        #expect(pings == 2, "two pings, then the missed limit")
        let end = ws.ended()
        #expect(end?.error?.code == .heartbeatTimeout)
        #expect(ws.stream.closedByOwner, "a dead peer's socket is dropped at once")
    }

    @Test func whenIdleHeartbeatAnsweredKeepsTheConnection() {
        let ws = EmbeddedWebSocket(options: Self.heartbeat(.whenIdle))
        #expect(ws.open() != nil)
        var pings = 0
        for _ in 0..<3 {
            ws.advance(by: .seconds(10))
            let frames = ws.clientFrames().filter(\.isPing)
            pings += frames.count
            for _ in frames { ws.serverSendsPong() }
        }
        #expect(pings == 3, "one ping per interval")
        #expect(ws.ended() == nil)
    }

    @Test func whenIdleHeartbeatStaysQuietWhileTheServerTalks() {
        let ws = EmbeddedWebSocket(options: Self.heartbeat(.whenIdle))
        #expect(ws.open() != nil)
        // Every 4 s over 32 s: more than three intervals, never one without data.
        for i in 0..<8 {
            ws.advance(by: .seconds(4))
            ws.serverSends(text: "tick \(i)")
        }
        #expect(ws.clientFrames().filter(\.isPing).isEmpty)
        #expect(ws.events().compactMap(\.text).count == 8)
        #expect(ws.ended() == nil)
    }

    @Test func fixedIntervalHeartbeatPingsWhileTheServerTalks() {
        let ws = EmbeddedWebSocket(options: Self.heartbeat(.fixedInterval))
        #expect(ws.open() != nil)
        var pings = 0
        for i in 0..<6 {
            ws.advance(by: .seconds(5))
            ws.serverSends(text: "tick \(i)")
            let frames = ws.clientFrames().filter(\.isPing)
            pings += frames.count
            for _ in frames { ws.serverSendsPong() }
        }
        #expect(pings == 3, "a ping every interval over 3 intervals, whatever the server sends")
        #expect(ws.ended() == nil)
    }

    @Test func fixedIntervalHeartbeatUnansweredEndsWithHeartbeatTimeout() {
        let ws = EmbeddedWebSocket(options: Self.heartbeat(.fixedInterval))
        #expect(ws.open() != nil)
        ws.advance(by: .seconds(30))
        #expect(ws.clientFrames().filter(\.isPing).count == 2)
        #expect(ws.ended()?.error?.code == .heartbeatTimeout)
    }

    @Test func applicationHeartbeatRepliesAreNotDelivered() {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = .application(every: .seconds(10), missedLimit: 3, .text(ping: "hb", pong: "hb"))
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        for _ in 0..<3 {
            ws.advance(by: .seconds(10))
            let sent = ws.clientFrames().compactMap { output -> String? in
                if case .text(let bytes) = output { return String(decoding: bytes, as: UTF8.self) }
                return nil
            }
            #expect(sent == ["hb"], "the application heartbeat goes out as a text message")
            ws.serverSends(text: "hb")
        }
        ws.serverSends(text: "real")
        #expect(ws.events().compactMap(\.text) == ["real"], "the replies are consumed, not delivered")
        #expect(ws.ended() == nil)
    }

    /// Engine.IO v4 over the transport: the server's `2` is answered `3` and consumed, the
    /// client sends nothing of its own, and a server that stops pinging is declared dead
    /// `pingInterval + pingTimeout` after the last thing it sent.
    @Test func responderOnlyAnswersTheServerAndDeclaresASilentOneDead() {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = .responder(deadAfter: .seconds(45), answering: .text(ping: "2", pong: "3", answersServerPings: true))
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        for i in 0..<4 {
            ws.advance(by: .seconds(25))
            #expect(ws.clientFrames().isEmpty, "no ping of ours")
            ws.serverSends(text: "2")
            ws.serverSends(text: "42[\"tick\",\(i)]")
            #expect(ws.clientFrames().compactMap(\.string) == ["3"], "the server's ping is answered at once")
        }
        #expect(ws.events().compactMap(\.text) == (0..<4).map { "42[\"tick\",\($0)]" }, "the pings are consumed")
        ws.advance(by: .seconds(45) - .nanoseconds(1))
        #expect(ws.ended() == nil, "alive until the silence is over")
        ws.advance(by: .nanoseconds(1))
        #expect(ws.ended()?.error?.code == .heartbeatTimeout)
        #expect(ws.clientFrames().compactMap(\.string).isEmpty)
        #expect(ws.stream.closedByOwner)
    }

    /// Ping frames, responder only: pongs as always, no ping of ours, dead after the silence.
    @Test func responderOnlyWithPingFrames() {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = .responder(deadAfter: .seconds(30))
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        for _ in 0..<3 {
            ws.advance(by: .seconds(20))
            ws.serverSendsPing([7])
            #expect(ws.clientFrames() == [.pong([7])])
        }
        ws.advance(by: .seconds(30) - .nanoseconds(1))
        #expect(ws.ended() == nil)
        ws.advance(by: .nanoseconds(1))
        #expect(ws.ended()?.error?.code == .heartbeatTimeout)
    }

    /// Without a silence bound the responder still answers and nothing ends the connection.
    @Test func responderOnlyWithoutABoundAnswersForever() {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = .responder(deadAfter: nil, answering: .text(ping: #"{"type":"ping"}"#, pong: #"{"type":"pong"}"#, answersServerPings: true))
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.advance(by: .seconds(3600))
        ws.serverSends(text: #"{ "type": "ping" }"#)
        #expect(ws.clientFrames().compactMap(\.string) == [#"{"type":"pong"}"#])
        ws.advance(by: .seconds(3600))
        #expect(ws.ended() == nil)
        #expect(ws.events().isEmpty)
    }

    /// A server heartbeat that is both the reply to our ping and a ping to answer: answered
    /// and consumed, and the connection stays alive.
    @Test func aMessageTheValidatorAcceptsIsAnsweredToo() {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = .application(every: .seconds(10), missedLimit: 1, ApplicationHeartbeat(
            payload: .text("ping"), isReply: { $0.text?.hasPrefix("hb") == true },
            responder: { message in
                guard let text = message.text, text.hasPrefix("hb ") else { return nil }
                return .text("ack " + text.dropFirst(3))
            }))
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        for i in 0..<3 {
            ws.advance(by: .seconds(10))
            #expect(ws.clientFrames().compactMap(\.string) == ["ping"])
            ws.serverSends(text: "hb \(i)")
            #expect(ws.clientFrames().compactMap(\.string) == ["ack \(i)"])
        }
        #expect(ws.events().isEmpty, "heartbeat traffic is consumed")
        #expect(ws.ended() == nil, "each answered message was also the sign of life")
    }

    // MARK: - Path probe

    @Test func answeredProbeKeepsTheConnection() {
        let ws = EmbeddedWebSocket()
        #expect(ws.open() != nil)
        ws.transport.verifyConnection(within: .seconds(5))
        ws.loop.run()
        #expect(ws.clientFrames().filter(\.isPing).count == 1, "the probe pings")
        ws.serverSendsPong()
        ws.advance(by: .seconds(30))
        #expect(ws.ended() == nil, "alive after the probe")
    }

    @Test func aProbeBeforeTheOpenDoesNothing() {
        let ws = EmbeddedWebSocket()
        ws.transport.verifyConnection(within: .milliseconds(50))
        ws.start()
        ws.stream.acceptConnection()
        ws.transport.verifyConnection(within: .milliseconds(50))
        ws.loop.run()
        ws.advance(by: .seconds(1))
        #expect(ws.ended() == nil, "a probe during the handshake is ignored, not armed")
        ws.acceptHandshake()
        ws.advance(by: .seconds(30))
        #expect(ws.clientFrames().filter(\.isPing).isEmpty, "no probe ping after the open either")
        #expect(ws.ended() == nil)
    }

    // MARK: - Idle timeout

    @Test func idleTimeoutEndsAConnectionWithoutData() {
        let ws = EmbeddedWebSocket { $0.idleTimeout = .seconds(60) }
        #expect(ws.open() != nil)
        ws.advance(by: .seconds(59))
        ws.serverSends(text: "still here")
        ws.advance(by: .seconds(59))
        #expect(ws.ended() == nil, "the read restarted the idle period")
        ws.advance(by: .seconds(1))
        #expect(ws.ended()?.error?.code == .idleTimeout)
    }

    // MARK: - Close handshake

    @Test func closeHandshakeCompletesWhenTheServerAnswers() {
        let ws = EmbeddedWebSocket()
        #expect(ws.open() != nil)
        ws.close(code: 1000)
        #expect(ws.clientFrames().compactMap(\.closeCode) == [1000])
        ws.serverSendsClose(code: 1000)
        ws.stream.feedEOF()
        let end = ws.ended()
        #expect(end?.code == 1000)
        #expect(end?.error?.code == .cancelled)
    }

    @Test func closeHandshakeTimeoutDropsTheSocket() {
        var options = EmbeddedWebSocket.quietOptions
        options.closeTimeout = .seconds(5)
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.close(code: 1000)
        #expect(ws.clientFrames().compactMap(\.closeCode) == [1000])
        ws.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(ws.ended() == nil)
        #expect(!ws.stream.closedByOwner, "the server still has time to answer")
        ws.advance(by: .nanoseconds(1))
        #expect(ws.ended()?.error?.code == .cancelled)
        #expect(ws.stream.closedByOwner)
    }

    /// The close timeout also bounds the wait for the server to close TCP after it answered
    /// our close frame (RFC 6455 §7.1.1); the end then reports the server's code.
    @Test func closeTimeoutBoundsTheWaitForTheServerToCloseTCP() {
        let ws = EmbeddedWebSocket()
        #expect(ws.open() != nil)
        ws.close(code: 1000)
        ws.serverSendsClose(code: 1001)  // answered, but TCP stays open
        ws.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(ws.ended() == nil)
        #expect(!ws.stream.closedByOwner, "the server still has time to close TCP")
        ws.advance(by: .nanoseconds(1))
        let end = ws.ended()
        #expect(end?.code == 1001 && end?.error?.code == .cancelled)
        #expect(ws.stream.closedByOwner)
    }

    // MARK: - Write timeout

    @Test func peerThatStopsReadingEndsWithPeerNotReading() async throws {
        var options = EmbeddedWebSocket.quietOptions
        options.writeTimeout = .seconds(20)
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.stream.kernelCapacity = 4096
        try await ws.send(.binary([UInt8](repeating: 7, count: 64 << 10)))
        #expect(ws.stream.pendingWriteBytes > 0, "the kernel's buffer is full")
        // The peer talks all along: what it sends is no sign that it reads.
        for i in 0..<3 {
            ws.advance(by: .seconds(5))
            ws.serverSends(text: "chatter \(i)")
        }
        ws.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(ws.ended() == nil)
        ws.advance(by: .seconds(1))
        let end = ws.ended()
        #expect(end?.error?.code == .peerNotReading)
        #expect(end?.error?.closeCode == 1008 && end?.code == 1006, "1008 is ours; the peer sent no close frame")
        let refused = await #expect(throws: RealtimeError.self) { try await ws.send(.text("late")) }
        #expect(refused?.code == .notConnected, "senders are released")
    }

    @Test func slowReaderIsNotAPeerThatStoppedReading() async throws {
        var options = EmbeddedWebSocket.quietOptions
        options.writeTimeout = .seconds(20)
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.stream.kernelCapacity = 4096
        let payload = [UInt8](repeating: 7, count: 64 << 10)
        try await ws.send(.binary(payload))
        var received: [UInt8] = []
        for _ in 0..<100 where ws.stream.pendingWriteBytes > 0 || ws.stream.unreadBytes > 0 {
            ws.advance(by: .seconds(15))
            received += ws.stream.takeWritten(max: 4096)
        }
        #expect(ws.ended() == nil, "every period saw bytes taken")
        #expect(received.count > payload.count, "all of it arrived")
    }
}

/// The accept value a server computes, for tests that write the 101 by hand.
enum TestServerAccept {
    static func value(forKey key: String) -> String {
        WebSocketHandshake.acceptValue(forKey: key, sha1: OpenSSLSHA1.digest)
    }
}
