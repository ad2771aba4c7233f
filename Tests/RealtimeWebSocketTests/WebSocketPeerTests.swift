import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import RealtimeWebSocket

/// Interop with third-party servers: Python `websockets` and `aiohttp` (Tests/Peers).
@Suite(.serialized, .timeLimit(.minutes(3))) struct WebSocketPeerTests {
    static let peers = ["ws_websockets.py", "ws_aiohttp.py"]

    @Test(arguments: peers) func echoTextAndBinary(peer script: String) async throws {
        let peer = try await PythonPeer.start(script: script)
        try await withDeadline {
            let probe = TransportProbe(peer.url("/echo"))
            let info = try #require(await probe.opened())
            #expect(info.status == 101 && info.transport == .webSocket)
            try await probe.transport.send(.text("héllo 🌍"))
            try await probe.transport.send(.binary([0, 1, 2, 255]))
            #expect(await probe.message()?.content == .text("héllo 🌍"))
            #expect(await probe.message()?.content == .binary([0, 1, 2, 255]))
            probe.transport.close(code: 1000, reason: "bye")
            let (end, _) = await probe.ended()
            #expect(end?.clean == true)
            #expect(end?.code == 1000)
            #expect(end?.error?.code == .cancelled)
        }
    }

    @Test func answersServerPingsWebsockets() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/ping?count=3&payload=abc"))
            #expect(await probe.opened() != nil)
            #expect(await probe.message()?.text == "pongs 3")
            let (end, _) = await probe.ended()
            #expect(end?.clean == true && end?.code == 1000 && end?.error == nil)
        }
    }

    /// aiohttp's own server heartbeat closes the connection unless our pongs come back. (It
    /// waits half the interval for a pong: 1 s keeps that above a loaded machine's hiccups.)
    @Test func answersServerPingsAiohttp() async throws {
        let peer = try await PythonPeer.start(script: "ws_aiohttp.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/heartbeat?interval=1"))
            #expect(await probe.opened() != nil)
            #expect(await probe.message()?.text == "alive")
            try await probe.transport.send(.text("still here"))
            #expect(await probe.message()?.text == "still here")
            probe.transport.close()
            let (end, _) = await probe.ended()
            #expect(end?.clean == true)
        }
    }

    /// A Python `websockets` server answers `{"op":"ping"}` with `json.dumps`'s
    /// `{"op": "pong"}`: with `.text(ping:pong:)` expecting `{"op":"pong"}` that is the reply,
    /// consumed, never delivered as a message.
    @Test func applicationPongWithOtherSpacingIsTheReply() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.heartbeat = .application(
                every: .milliseconds(100), missedLimit: 20, mode: .fixedInterval,
                .text(ping: #"{"op":"ping"}"#, pong: #"{"op":"pong"}"#))
            let probe = TransportProbe(peer.url("/json-pong?count=3"), options: options)
            #expect(await probe.opened() != nil)
            try await probe.transport.send(.text("hello"))
            var delivered: [String] = []
            while let message = await probe.message(), delivered.count < 10 {
                delivered.append(message.text ?? "<binary>")
                if message.text == "pongs 3" { break }
            }
            #expect(delivered == ["hello", "pongs 3"], "the three replies were consumed: \(delivered)")
            probe.transport.close()
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .cancelled, "no heartbeat timeout: \(String(describing: end))")
        }
    }

    /// 1012–1014 from a Python server (`websockets` and `aiohttp`): the code and reason
    /// reach the end as sent, 1012 an orderly end, 1013 and 1014 `remote_closed` with the code.
    @Test(arguments: peers, [1012, 1013, 1014])
    func retryLaterCloseCodes(peer script: String, code: Int) async throws {
        let peer = try await PythonPeer.start(script: script)
        try await withDeadline {
            let probe = TransportProbe(peer.url("/close?code=\(code)&reason=later"))
            #expect(await probe.opened() != nil)
            let (end, _) = await probe.ended()
            #expect(end?.clean == true && end?.code == UInt16(code) && end?.reason == "later", "\(String(describing: end))")
            #expect(end?.error?.code == (code == 1012 ? nil : .remoteClosed), "\(String(describing: end))")
            #expect(end?.error?.closeCode == (code == 1012 ? nil : UInt16(code)))
        }
    }

    @Test(arguments: peers) func serverCloseCodes(peer script: String) async throws {
        let peer = try await PythonPeer.start(script: script)
        try await withDeadline {
            let probe = TransportProbe(peer.url("/close?code=4001&reason=custom"))
            #expect(await probe.opened() != nil)
            let (end, _) = await probe.ended()
            #expect(end?.clean == true)
            #expect(end?.code == 4001)
            #expect(end?.reason == "custom")
            #expect(end?.error?.code == .remoteClosed)
            #expect(end?.error?.closeCode == 4001)
        }
    }

    @Test(arguments: peers) func tenMebibyteMessage(peer script: String) async throws {
        let peer = try await PythonPeer.start(script: script)
        try await withDeadline(60) {
            let probe = TransportProbe(peer.url("/large?size=10485760&type=binary"))
            #expect(await probe.opened() != nil)
            let message = try #require(await probe.message())
            guard case .binary(let bytes) = message.content else {
                Issue.record("expected binary")
                return
            }
            #expect(bytes.count == 10 << 20)
            // Compare against the peer's pattern (byte i = i % 251) without a per-byte closure,
            // which is slow in debug builds.
            let unit = [UInt8]((0..<251).map { UInt8($0) })
            var expected = [UInt8]()
            expected.reserveCapacity(bytes.count + 251)
            while expected.count < bytes.count { expected += unit }
            expected.removeLast(expected.count - bytes.count)
            #expect(sameBytes(bytes, expected))
            // And back: the server echoes a 10 MiB message we send.
            try await probe.transport.send(.binary(bytes))
            let echoed = try #require(await probe.message())
            #expect(sameBytes(echoed.bytes, bytes))
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test(arguments: [
        ("rsv", UInt16(1002), RealtimeError.Code.protocolViolation),
        ("opcode", 1002, .protocolViolation),
        ("masked", 1002, .protocolViolation),
        ("badutf8", 1007, .invalidUTF8),
        ("control", 1002, .protocolViolation),
        ("fragcontrol", 1002, .protocolViolation),
        ("continuation", 1002, .protocolViolation),
        ("badclose", 1002, .protocolViolation),
        ("garbage", 1002, .protocolViolation),
    ])
    func protocolViolations(mode: String, closeCode: UInt16, code: RealtimeError.Code) async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/violate?mode=\(mode)"))
            #expect(await probe.opened() != nil)
            let (end, messages) = await probe.ended()
            #expect(messages.isEmpty)
            #expect(end?.clean == false)
            #expect(end?.error?.code == code, "mode \(mode): \(String(describing: end))")
            #expect(end?.error?.closeCode == closeCode)
            #expect(end?.code == 1006, "ours is the error's: a failing client reads no answer (RFC 6455 §7.1.7)")
        }
    }

    @Test func subprotocolNegotiation() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/subprotocol")) { $0.subprotocols = ["chat.v1", "x"] }
            let info = try #require(await probe.opened())
            #expect(info.subprotocol == "chat.v1")
            #expect(await probe.message()?.text == "chat.v1")
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test func customHeadersReachTheServer() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/headers")) { $0.headers = ["X-Client": "swift-realtime", "Authorization": "Bearer t"] }
            #expect(await probe.opened() != nil)
            let text = try #require(await probe.message()?.text)
            let headers = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
            #expect(headers["x-client"] == "swift-realtime")
            #expect(headers["authorization"] == "Bearer t")
            #expect(headers["sec-websocket-version"] == "13")
            #expect(headers["host"] == "127.0.0.1:\(peer.port)")
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test func ipv6Loopback() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py", host: "::1")
        try await withDeadline {
            let probe = TransportProbe(peer.url(scheme: "ws", path: "/echo"))
            #expect(await probe.opened() != nil)
            try await probe.transport.send(.text("v6"))
            #expect(await probe.message()?.text == "v6")
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test func refusedUpgradeReportsStatus() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/nowhere"))
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .handshake)
            #expect(end?.error?.status == 404)
        }
    }

    @Test func droppedConnectionIsNotClean() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline {
            let probe = TransportProbe(peer.url("/drop?after=bye"))
            #expect(await probe.opened() != nil)
            let (end, messages) = await probe.ended()
            #expect(messages.map(\.text) == ["bye"])
            #expect(end?.clean == false)
            #expect(end?.error != nil)
        }
    }
}

/// Byte-array equality with `memcmp` (the generic `==` is a per-element loop in debug builds).
func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
}
