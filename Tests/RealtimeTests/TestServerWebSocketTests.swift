import RealtimeCore
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// The `/ws` endpoint of the test server, driven by a raw client using the RealtimeCore codec.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct TestServerWebSocketTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    private func connect(_ target: String, headers: [String] = []) throws -> TestServerWebSocketClient {
        try TestServerWebSocketClient(port: server.port, target: target, extraHeaders: headers)
    }

    @Test func upgradesWithTheRFCAcceptValue() throws {
        defer { server.stop() }
        let client = try connect("/ws")
        #expect(client.statusCode == 101)
        #expect(client.header("Sec-WebSocket-Accept") == TestServerWebSocketClient.sampleAccept)
        #expect(client.header("Upgrade")?.lowercased() == "websocket")
        #expect(client.header("Sec-WebSocket-Protocol") == nil)
        #expect(server.requests.last?.headers["Sec-WebSocket-Key"] == TestServerWebSocketClient.sampleKey)
    }

    @Test func echoesMessagesAnswersPingsAndEchoesTheClose() throws {
        defer { server.stop() }
        let client = try connect("/ws")
        client.send(client.encoder.text("héllo"))
        client.send(client.encoder.binary([0, 1, 2, 255]))
        client.send(client.encoder.ping(Array("hb".utf8)))
        // A fragmented text message with a ping between its fragments.
        client.send(client.encoder.encode(opcode: .text, payload: Array("frag".utf8), fin: false))
        client.send(client.encoder.ping([]))
        client.send(client.encoder.encode(opcode: .continuation, payload: Array("ment".utf8), fin: true))
        let outputs = try client.receive(count: 5)
        #expect(outputs == [
            .text(Array("héllo".utf8)), .binary([0, 1, 2, 255]), .pong(Array("hb".utf8)), .pong([]),
            .text(Array("fragment".utf8)),
        ])
        client.send(client.encoder.close(code: 1000, reason: "bye"))
        #expect(try client.receive() == [.close(code: 1000, reason: "")])
        #expect(client.rawBytes(for: 1000).isEmpty)
        #expect(client.ended == .eof)  // the server closes TCP after the close handshake

        let session = try #require(server.webSocketSessions.last)
        #expect(session.textMessages == ["héllo", "fragment"])
        #expect(session.binaryMessages == [[0, 1, 2, 255]])
        #expect(session.messageCount == 3)
        #expect(session.pingsReceived == 2)
        #expect(session.receivedClose)
        #expect(session.closeCode == 1000)
        #expect(session.closeReason == "bye")
    }

    @Test func echoesA128KiBBinaryMessage() throws {
        defer { server.stop() }
        let client = try connect("/ws")
        let payload = (0..<(128 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        client.send(client.encoder.binary(payload))
        #expect(try client.receive(within: 5000) == [.binary(payload)])
    }

    @Test func sendsNMessagesThenClosesWithCodeAndReason() throws {
        defer { server.stop() }
        let client = try connect("/ws?mode=send&count=3&interval_ms=10&close=4000&reason=done")
        let outputs = try client.receive(count: 4)
        #expect(outputs == [
            .text(Array("message 1".utf8)), .text(Array("message 2".utf8)), .text(Array("message 3".utf8)),
            .close(code: 4000, reason: "done"),
        ])
        client.send(client.encoder.close(code: 4000))
        #expect(client.rawBytes(for: 1000).isEmpty)
        #expect(client.ended == .eof)
        #expect(server.webSocketSessions.last?.closeCode == 4000)
    }

    @Test func sendsBinaryMessages() throws {
        defer { server.stop() }
        let client = try connect("/ws?mode=send&count=2&binary=1")
        #expect(try client.receive(count: 2) == [.binary(Array("message 1".utf8)), .binary(Array("message 2".utf8))])
    }

    @Test func sendsPaddedFragmentedMessages() throws {
        defer { server.stop() }
        let client = try connect("/ws?mode=send&count=2&size=1000&fragment=300")
        let bytes = client.rawBytes(for: 300)
        var decoder = WebSocketFrameDecoder(role: .client)
        let frames = try decoder.decode(bytes)
        // 1000 bytes in fragments of 300, 300, 300, 100; twice.
        #expect(frames.map(\.opcode) == [.text, .continuation, .continuation, .continuation,
                                        .text, .continuation, .continuation, .continuation])
        #expect(frames.map(\.fin) == [false, false, false, true, false, false, false, true])
        #expect(frames.map(\.payload.count) == [300, 300, 300, 100, 300, 300, 300, 100])
        var receiver = WebSocketReceiver(role: .client)
        let messages = try receiver.receive(bytes)
        let expected = Array("message 1".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 991)
        #expect(messages.first == .text(expected))
        #expect(messages.count == 2)
    }

    @Test func closesAtOnceInCloseMode() throws {
        defer { server.stop() }
        let client = try connect("/ws?mode=close&close=1001&reason=away")
        #expect(try client.receive() == [.close(code: 1001, reason: "away")])
    }

    @Test func pingsOnAnIntervalAndCountsPongs() throws {
        defer { server.stop() }
        let client = try connect("/ws?ping_ms=30")
        let outputs = try client.receive(count: 3)
        #expect(outputs.prefix(3) == [.ping(Array("ping 1".utf8)), .ping(Array("ping 2".utf8)), .ping(Array("ping 3".utf8))])
        client.send(client.encoder.pong(Array("ping 3".utf8)))
        client.send(client.encoder.close(code: 1000))
        _ = try client.receive(count: 10, within: 1000)
        let session = try #require(server.webSocketSessions.last)
        #expect(session.pongsReceived == 1)
        #expect(session.pingsSent >= 3)
    }

    @Test func sendsApplicationHeartbeatsAndAnswersThem() throws {
        defer { server.stop() }
        let client = try connect("/ws?heartbeat_ms=20&heartbeat=%7B%22op%22%3A%22hb%22%7D&reply_to=ping&reply=pong")
        let heartbeats = try client.receive(count: 2)
        #expect(heartbeats.prefix(2) == [.text(Array(#"{"op":"hb"}"#.utf8)), .text(Array(#"{"op":"hb"}"#.utf8))])
        client.send(client.encoder.text("ping"))
        client.send(client.encoder.text("other"))
        let answers = try client.receive(count: 10, within: 300).filter { $0 != .text(Array(#"{"op":"hb"}"#.utf8)) }
        #expect(answers == [.text(Array("pong".utf8)), .text(Array("other".utf8))])
        #expect((server.webSocketSessions.last?.heartbeatsSent ?? 0) >= 2)
    }

    @Test func ignoresPingsWhenAsked() throws {
        defer { server.stop() }
        let client = try connect("/ws?ignore_pings=1")
        client.send(client.encoder.ping(Array("anyone?".utf8)))
        client.send(client.encoder.text("still echoes"))
        #expect(try client.receive(count: 2, within: 300) == [.text(Array("still echoes".utf8))])
        #expect(server.webSocketSessions.last?.pingsReceived == 1)
    }

    @Test func refusesTheUpgradeOrABadRequest() throws {
        defer { server.stop() }
        let refused = try connect("/ws?refuse=403")
        #expect(refused.statusCode == 403)
        let notUpgrade = try TestServerRawClient.fetch(port: server.port, "/ws")
        #expect(notUpgrade.statusCode == 400)
        #expect(server.webSocketSessions.isEmpty)
    }

    @Test func requiresABearerTokenWhenAsked() throws {
        defer { server.stop() }
        #expect(try connect("/ws?auth=abc").statusCode == 401)
        #expect(try connect("/ws?auth=abc", headers: ["Authorization: Bearer abc"]).statusCode == 101)
    }

    @Test func sendsAWrongAcceptValue() throws {
        defer { server.stop() }
        let client = try connect("/ws?bad_accept=1")
        #expect(client.statusCode == 101)
        let accept = try #require(client.header("Sec-WebSocket-Accept"))
        #expect(accept != TestServerWebSocketClient.sampleAccept)
        #expect(accept.count == 28)
    }

    @Test func selectsASubprotocol() throws {
        defer { server.stop() }
        let named = try connect("/ws?protocol=chat.v2", headers: ["Sec-WebSocket-Protocol: chat.v1"])
        #expect(named.header("Sec-WebSocket-Protocol") == "chat.v2")
        let first = try connect("/ws?protocol=*", headers: ["Sec-WebSocket-Protocol: a, b"])
        #expect(first.header("Sec-WebSocket-Protocol") == "a")
        #expect(server.webSocketSessions.map(\.subprotocol) == ["chat.v2", "a"])
    }

    @Test func stallsAfterTheUpgrade() throws {
        defer { server.stop() }
        let client = try connect("/ws?stall=1")
        #expect(client.statusCode == 101)
        client.send(client.encoder.ping([]))
        #expect(client.rawBytes(for: 300).isEmpty)
        #expect(client.ended == nil)
    }

    @Test func dropsMidFrame() throws {
        defer { server.stop() }
        let client = try connect("/ws?drop_mid_frame=1")
        let bytes = client.rawBytes(for: 1000)
        #expect(bytes == [0x81, 100] + Array("0123456789".utf8))
        #expect(client.ended == .eof)
        var receiver = WebSocketReceiver(role: .client)
        #expect(try receiver.receive(bytes).isEmpty)
        #expect(receiver.decoder.partialFrame?.received == 10)
    }

    @Test func dripsFramesByteByByte() throws {
        defer { server.stop() }
        // From before the handshake: the drip starts after it, so a test thread descheduled
        // between the two cannot see the whole frame arrive "at once".
        let started = ContinuousClock.now
        let client = try connect("/ws?mode=send&count=1&drip_ms=5")
        #expect(try client.receive() == [.text(Array("message 1".utf8))])
        // 11 bytes with 10 pauses of 5 ms between them.
        #expect(ContinuousClock.now - started >= .milliseconds(45))
    }

    @Test(arguments: [
        ("masked", UInt16(1002)), ("rsv", 1002), ("opcode", 1002), ("control_size", 1002),
        ("fragmented_control", 1002), ("close_code", 1002), ("utf8", 1007),
    ])
    func sendsProtocolViolations(violation: String, expectedCode: UInt16) throws {
        defer { server.stop() }
        let client = try connect("/ws?violation=\(violation)")
        var caught: RealtimeError?
        do {
            _ = try client.receive()
        } catch let error as RealtimeError {
            caught = error
        }
        #expect(caught?.closeCode == expectedCode)
        // The client fails the connection with the code; the server records it.
        client.send(client.encoder.close(code: expectedCode))
        #expect(client.rawBytes(for: 1000).count == 4)  // the close echo (2-byte header + code)
        #expect(server.webSocketSessions.last?.closeCode == expectedCode)
    }

    @Test func failsAClientThatDoesNotMask() throws {
        defer { server.stop() }
        let client = try connect("/ws")
        client.send([0x81, 0x02, 0x68, 0x69])  // unmasked "hi"
        var serverSide = WebSocketReceiver(role: .client)
        let outputs = try serverSide.receive(client.rawBytes(for: 1000))
        #expect(outputs == [.close(code: 1002, reason: "")])
        #expect(client.ended == .eof)
        #expect(server.webSocketSessions.last?.protocolErrorCode == 1002)
    }
}
