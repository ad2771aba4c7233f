#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// Hostile WebSocket servers, byte for byte (a correct 101 and then a bad frame, or a bad
/// 101), through ``RealtimeClient``: the error code and close code the user sees, whether the
/// client retries, how many attempts it made, and never a secret. The map of every hostile
/// case to its test is in `HostileInputMapTests.swift`.
@Suite(.timeLimit(.minutes(1)))
struct HostileWebSocketTests {
    /// One frame (or frame sequence) that breaks RFC 6455 and what the client must answer.
    struct BadFrame: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var code: RealtimeError.Code
        var closeCode: UInt16
        var testDescription: String { name }
    }

    static let badFrames: [BadFrame] = {
        var frames = [
            // §5.2: the most significant bit of a 64-bit length must be 0.
            BadFrame(name: "length 2^63", bytes: [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], code: .protocolViolation, closeCode: 1002),
            BadFrame(name: "length 2^63-1", bytes: [0x82, 0x7F, 0x7F] + [UInt8](repeating: 0xFF, count: 7), code: .frameTooLarge, closeCode: 1009),
            BadFrame(name: "RSV3 without an extension", bytes: [0x91, 0x01, 0x61], code: .protocolViolation, closeCode: 1002),
            BadFrame(name: "continuation with no message", bytes: [0x80, 0x01, 0x61], code: .protocolViolation, closeCode: 1002),
            BadFrame(name: "a new message inside a fragmented one", bytes: [0x01, 0x01, 0x61, 0x81, 0x01, 0x62], code: .protocolViolation, closeCode: 1002),
            // §5.5: control frames carry at most 125 bytes; §5.5.1: a close body is empty or ≥ 2 bytes.
            BadFrame(name: "close of 126 bytes", bytes: [0x88, 0x7E, 0x00, 0x7E] + [0x03, 0xE8] + [UInt8](repeating: 0x61, count: 124), code: .protocolViolation, closeCode: 1002),
            BadFrame(name: "close of 1 byte", bytes: [0x88, 0x01, 0x03], code: .protocolViolation, closeCode: 1002),
            BadFrame(name: "close reason not UTF-8", bytes: [0x88, 0x04, 0x03, 0xE8, 0xFF, 0xFE], code: .invalidUTF8, closeCode: 1007),
        ]
        // §5.2: opcodes 0x3-0x7 and 0xB-0xF are reserved.
        for opcode in [0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF] as [UInt8] {
            frames.append(BadFrame(name: "reserved opcode 0x\(String(opcode, radix: 16))", bytes: [0x80 | opcode, 0x00], code: .protocolViolation, closeCode: 1002))
        }
        // §7.4.1/§7.4.2: codes a server must not send (reserved, unassigned or out of range).
        for code in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] as [UInt16] {
            frames.append(BadFrame(name: "close code \(code)", bytes: [0x88, 0x02, UInt8(code >> 8), UInt8(code & 0xFF)], code: .protocolViolation, closeCode: 1002))
        }
        return frames
    }()

    @Test("a bad frame from the server: the right error and close code; protocol errors retried, limits not", arguments: badFrames)
    func badFrame(_ frame: BadFrame) async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        server.setHandler(path: "/bad") { writer in
            try writer.acceptWebSocket()
            try writer.writeRaw(frame.bytes)
            try writer.hold()
        }
        // The server never answers the client's close: a client that fails the connection
        // reports at once (milliseconds), one that waits for the closing handshake only after
        // closeTimeout, set far apart so that a loaded or instrumented run cannot blur the two.
        // Measured from `open` (the bad frame follows the 101 at once): on a loaded machine
        // the connection itself may take seconds.
        let closeTimeout = Duration.seconds(8)
        let run = try await HostileRun.client(server.wsURL("/bad"), until: { $0.contains { $0.closeEvent != nil } }) {
            $0.webSocket.heartbeat = .disabled
            $0.webSocket.closeTimeout = closeTimeout
        }
        #expect(run.messages.isEmpty, "\(run.summary)")
        let error = try #require(run.errors.first, "\(run.summary)")
        let openedAt = try #require(run.events.firstIndex { if case .open = $0 { true } else { false } }.map { run.times[$0] })
        let failedAfter = try #require(run.firstErrorAt) - openedAt
        #expect(failedAfter < closeTimeout, "the error came \(failedAfter) after open (at \(openedAt + failedAfter))")
        #expect(error.error.code == frame.code, "\(error.error)")
        #expect(error.error.closeCode == frame.closeCode, "\(error.error)")
        #expect(run.closes.first?.code == 1006, "our code is the error's; the server sent no close frame: \(run.summary)")
        #expect(error.willRetry == (error.error.failureClass == .protocol), "\(error)")
        #expect(server.requests(path: "/bad").count == 1)
        run.expectNoSecret()
    }

    /// A server frozen after the 101 (it reads and answers nothing): the heartbeat declares it
    /// dead. `closed` reports 1006, an end without the server's close frame (RFC 6455
    /// §7.1.5), not the 1001 of our best-effort close frame, which the error carries.
    @Test func aFrozenServerIsClosedWith1006() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        server.setHandler(path: "/frozen") { writer in
            try writer.acceptWebSocket()
            try writer.hold()
        }
        let run = try await HostileRun.client(server.wsURL("/frozen"), until: { $0.contains { $0.closeEvent != nil } }) {
            $0.heartbeat = .ping(every: .milliseconds(100), missedLimit: 1)
            $0.reconnect = .never
        }
        let error = try #require(run.errors.first, "\(run.summary)")
        #expect(error.error.code == .heartbeatTimeout && error.error.closeCode == 1001, "\(error.error)")
        let close = try #require(run.closes.first, "\(run.summary)")
        #expect(close.code == 1006 && close.reason == nil && !close.clean, "\(close)")
        run.expectNoSecret()
    }

    /// A 101 (or not) that must not open the connection.
    struct BadHandshake: Sendable, CustomTestStringConvertible {
        var name: String
        /// The response head; `ACCEPT` is replaced by the correct `Sec-WebSocket-Accept`.
        var head: String
        var subprotocols: [String] = []
        var testDescription: String { name }
    }

    static let badHandshakes: [BadHandshake] = {
        let upgrade = "Upgrade: websocket\r\n", connection = "Connection: Upgrade\r\n", accept = "Sec-WebSocket-Accept: ACCEPT\r\n"
        let switching = "HTTP/1.1 101 Switching Protocols\r\n"
        return [
            BadHandshake(name: "101 without any header", head: switching + "\r\n"),
            BadHandshake(name: "missing Upgrade", head: switching + connection + accept + "\r\n"),
            BadHandshake(name: "missing Connection", head: switching + upgrade + accept + "\r\n"),
            BadHandshake(name: "Upgrade: h2c", head: switching + "Upgrade: h2c\r\n" + connection + accept + "\r\n"),
            BadHandshake(name: "wrong accept", head: switching + upgrade + connection + "Sec-WebSocket-Accept: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"),
            BadHandshake(name: "an extension not offered", head: switching + upgrade + connection + accept + "Sec-WebSocket-Extensions: x-webkit-deflate-frame\r\n\r\n"),
            BadHandshake(name: "a subprotocol when none was offered", head: switching + upgrade + connection + accept + "Sec-WebSocket-Protocol: evil\r\n\r\n"),
            BadHandshake(name: "a subprotocol not offered", head: switching + upgrade + connection + accept + "Sec-WebSocket-Protocol: evil\r\n\r\n", subprotocols: ["chat"]),
            BadHandshake(name: "200 instead of 101", head: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
            BadHandshake(name: "100 Continue before the 101", head: "HTTP/1.1 100 Continue\r\n\r\n" + switching + upgrade + connection + accept + "\r\n"),
            BadHandshake(name: "not HTTP at all", head: "SSH-2.0-OpenSSH_9.2\r\n\r\n"),
        ]
    }()

    @Test("a handshake that must not open: handshake error, no retry, one request", arguments: badHandshakes)
    func badHandshake(_ handshake: BadHandshake) async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        server.setHandler(path: "/bad") { writer in
            try writer.writeRawHead(handshake.head.replacingOccurrences(of: "ACCEPT", with: writer.webSocketAccept), framing: .none)
            try writer.writeRaw(Array("hello".utf8))
            try writer.hold()
        }
        let run = try await HostileRun.client(server.wsURL("/bad")) {
            $0.subprotocols = handshake.subprotocols
            $0.webSocket.heartbeat = .disabled
        }
        #expect(run.opens.isEmpty && run.messages.isEmpty, "\(run.summary)")
        let error = try #require(run.errors.first, "\(run.summary)")
        print("Hostile WebSocket: \(handshake.name): \(error.error)")
        #expect(error.error.code == .handshake, "\(error.error)")
        #expect(!error.willRetry, "\(error)")
        #expect(run.stoppedByItself)
        #expect(server.requests(path: "/bad").count == 1)
        run.expectNoSecret()
    }

    @Test("a cross-origin redirect drops X-Authorization, X-Auth-Key, Ocp-Apim-Subscription-Key and Cookie")
    func vendorCredentialsStayOnTheirOrigin() async throws {
        let server = TestServer(), other = TestServer()
        try server.start()
        try other.start()
        defer {
            server.stop()
            other.stop()
        }
        let elsewhere = other.wsURL("/ws?mode=send&count=1&close=1000").absoluteString
        server.setHandler(path: "/away") { writer in
            try writer.writeHead(status: 307, headers: ["Location": elsewhere], framing: .contentLength(0))
        }
        let run = try await HostileRun.client(server.wsURL("/away")) {
            $0.headers.add(name: "X-Authorization", value: "SECRET-x")
            $0.headers.add(name: "X-Auth-Key", value: "SECRET-k")
            $0.headers.add(name: "Ocp-Apim-Subscription-Key", value: "SECRET-o")
            $0.headers.add(name: "X-Trace", value: "kept")
            $0.reconnect = .finite
        }
        #expect(run.messages.map(\.text) == ["message 1"], "\(run.summary)")
        let first = try #require(server.requests(path: "/away").first)
        #expect(first.headers["Ocp-Apim-Subscription-Key"] == "SECRET-o")
        let away = try #require(other.requests(path: "/ws").first)
        for name in ["Authorization", "Cookie", "X-Api-Key", "X-Authorization", "X-Auth-Key", "Ocp-Apim-Subscription-Key"] {
            #expect(away.headers[name] == nil, "\(name) went to another origin")
        }
        #expect(away.headers["X-Trace"] == "kept")
        run.expectNoSecret()
    }
}
#endif
