#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// Hostile WebSocket servers, byte for byte (a correct 101 and then a bad frame, a bad 101, a
/// server frozen after its 101), through ``RealtimeClient`` on the embedded stack: the error
/// and close codes the user sees, whether the client retries, how many attempts it made, and
/// never a secret. The loop's time does not move unless the test moves it, so "at once" is
/// exact: a client that waited for a closing handshake the server never answers would hang
/// here, not merely be slower. The map of every hostile case to its test is in
/// `HostileInputMapTests.swift`.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedHostileWebSocketTests {
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

    /// A client with the hostile runs' secrets planted (a bearer token, a cookie, an API key, a
    /// URL password) and a log capture, for `expectNoSecret`.
    static func client(logs: LogCapture, _ configure: @escaping (inout RealtimeClient.Configuration) -> Void) throws -> EmbeddedClient {
        try EmbeddedClient("ws://user:\(HostileRun.password)@peer.test/bad") {
            $0.headers = ["Authorization": HostileRun.bearer, "Cookie": HostileRun.cookie, "X-Api-Key": HostileRun.apiKey]
            $0.logHandler = logs
            $0.logLevel = .trace
            configure(&$0)
        }
    }

    /// No planted secret in any event or log record.
    static func expectNoSecret(_ rec: EventRecorder, _ logs: LogCapture, sourceLocation: SourceLocation = #_sourceLocation) {
        HostileRun(events: rec.events, times: [], logs: logs.lines, stoppedByItself: true, elapsed: .zero)
            .expectNoSecret(sourceLocation: sourceLocation)
    }

    @Test(arguments: badFrames)
    func aBadFrameFailsTheConnectionAtOnceWithItsErrorAndCloseCode(_ frame: BadFrame) async throws {
        let logs = LogCapture()
        let t = try Self.client(logs: logs) { $0.webSocket.closeTimeout = .seconds(8) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let server = try await t.webSocketAttempt(1)
        server.accept()
        server.answersClose = false  // a hostile server never answers the client's close
        server.feed(frame.bytes)
        await rec.waitFor("the close") { $0.closeEvent != nil }
        #expect(t.loop.now == ManualLoop.Instant(offset: .zero), "at once: the server never answers a close")
        #expect(rec.events.allSatisfy { if case .event = $0 { false } else { true } }, "\(rec.summary)")
        let error = try #require(rec.events.compactMap(\.errorEvent).first, "\(rec.summary)")
        #expect(error.error.code == frame.code, "\(error.error)")
        #expect(error.error.closeCode == frame.closeCode, "\(error.error)")
        #expect(rec.events.compactMap(\.closeEvent).first?.code == 1006, "our code is the error's; the server sent no close frame")
        #expect(server.closeFrame?.code == frame.closeCode, "the client's close frame carries the error's code (§7.1.7)")
        #expect(server.isClosed, "and the client closed TCP without waiting for an answer")
        // Protocol violations are retried (another server may be sane); limits are not.
        if error.error.failureClass == .protocol {
            #expect(error.willRetry, "\(error)")
            await t.waitOutTheBackoff()
            _ = try await t.webSocketAttempt(2)
        } else {
            #expect(!error.willRetry, "\(error)")
            await rec.waitUntilFinished()
            #expect(t.connectionCount == 1)
        }
        Self.expectNoSecret(rec, logs)
    }

    /// A server frozen after the 101 (it reads and answers nothing): the heartbeat declares it
    /// dead after one missed pong. `closed` reports 1006, an end without the server's close
    /// frame (RFC 6455 §7.1.5), not the 1001 of the client's best-effort close, which the
    /// error carries.
    @Test func aFrozenServerIsDeclaredDeadByTheHeartbeatAndClosedWith1006() async throws {
        let logs = LogCapture()
        let t = try Self.client(logs: logs) {
            $0.heartbeat = .ping(every: .milliseconds(100), missedLimit: 1)
            $0.reconnect = .never
        }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        await rec.waitFor(1)
        t.advance(by: .milliseconds(100))
        #expect(t.webSocket(0)?.isClosed == false, "one ping out, not answered yet")
        t.advance(by: .seconds(6))
        await rec.waitUntilFinished()
        let error = try #require(rec.events.compactMap(\.errorEvent).first, "\(rec.summary)")
        #expect(error.error.code == .heartbeatTimeout && error.error.closeCode == 1001, "\(error.error)")
        let close = try #require(rec.events.compactMap(\.closeEvent).first, "\(rec.summary)")
        #expect(close.code == 1006 && close.reason == nil && !close.clean, "\(close)")
        Self.expectNoSecret(rec, logs)
    }

    /// A 101 (or not) that must not open the connection.
    struct BadHandshake: Sendable, CustomTestStringConvertible {
        var name: String
        /// The response head; `ACCEPT` is replaced by the correct `Sec-WebSocket-Accept`.
        var head: String
        var subprotocols: [String] = []
        /// The status the error reports, when the head has one that is not 101.
        var status: Int?
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
            BadHandshake(name: "200 instead of 101", head: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200),
            BadHandshake(
                name: "100 Continue before the 101", head: "HTTP/1.1 100 Continue\r\n\r\n" + switching + upgrade + connection + accept + "\r\n",
                status: 100),
            BadHandshake(name: "not HTTP at all", head: "SSH-2.0-OpenSSH_9.2\r\n\r\n"),
        ]
    }()

    @Test(arguments: badHandshakes)
    func aHandshakeThatMustNotOpenIsAHandshakeErrorNotRetried(_ handshake: BadHandshake) async throws {
        let logs = LogCapture()
        let t = try Self.client(logs: logs) { $0.subprotocols = handshake.subprotocols }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.acceptTCP()
        let request = try #require(server.upgradeRequest)
        let key = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        server.feed(Array((handshake.head.replacingOccurrences(of: "ACCEPT", with: TestServer.webSocketAccept(forKey: key)) + "hello").utf8))
        await rec.waitUntilFinished()
        #expect(rec.events.allSatisfy { if case .error = $0 { true } else if case .closed = $0 { true } else { false } }, "never opened: \(rec.summary)")
        let error = try #require(rec.events.compactMap(\.errorEvent).first, "\(rec.summary)")
        #expect(error.error.code == .handshake, "\(error.error)")
        if let status = handshake.status { #expect(error.error.status == status, "\(error.error)") }
        #expect(!error.willRetry, "\(error)")
        #expect(t.connectionCount == 1)
        Self.expectNoSecret(rec, logs)
    }
}
#endif
