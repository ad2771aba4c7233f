import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTesting
@testable import RealtimeWebSocket

/// How a WebSocket attempt ends in each phase (connecting, handshaking, open, closing) when
/// the peer closes, the network resets, or the application closes or aborts; and the send
/// and receive paths against a kernel that takes little or nothing. All on the embedded loop.
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedLifecycleTests {
    enum Phase: CaseIterable, Sendable {
        case connecting, handshaking, open, closing
    }

    /// A transport brought to `phase`.
    static func transport(in phase: Phase, options: WebSocketOptions = EmbeddedWebSocket.quietOptions) -> EmbeddedWebSocket {
        let ws = EmbeddedWebSocket(options: options)
        switch phase {
        case .connecting:
            ws.start()
        case .handshaking:
            ws.start()
            ws.stream.acceptConnection()
        case .open:
            ws.open()
        case .closing:
            ws.open()
            ws.close(code: 1000)
            _ = ws.clientFrames()
        }
        return ws
    }

    // MARK: - The peer or the network ends the stream

    @Test(arguments: Phase.allCases)
    func endOfFileInEveryPhase(_ phase: Phase) {
        let ws = Self.transport(in: phase)
        ws.stream.feedEOF()
        let end = ws.ended()
        switch phase {
        case .connecting, .handshaking: #expect(end?.error?.code == .handshake, "\(String(describing: end))")
        case .open: #expect(end?.error?.code == .remoteClosed, "\(String(describing: end))")
        case .closing: #expect(end?.error?.code == .cancelled, "we asked for the end: \(String(describing: end))")
        }
        #expect(end?.clean == false)
        #expect(end?.code == Self.codeWithoutACloseFrame(phase), "RFC 6455 §7.1.5")
        #expect(ws.loop.pendingTimerCount == 0, "an end leaves no timer armed")
    }

    @Test(arguments: Phase.allCases)
    func resetInEveryPhase(_ phase: Phase) {
        let ws = Self.transport(in: phase)
        ws.stream.fail()
        let end = ws.ended()
        switch phase {
        case .connecting, .handshaking, .open: #expect(end?.error?.code == .network, "\(String(describing: end))")
        case .closing: #expect(end?.error?.code == .cancelled, "\(String(describing: end))")
        }
        #expect(end?.code == Self.codeWithoutACloseFrame(phase))
        #expect(ws.loop.pendingTimerCount == 0)
    }

    /// The close code of an end without the server's close frame: 1006 once the connection
    /// opened (RFC 6455 §7.1.5), none before.
    static func codeWithoutACloseFrame(_ phase: Phase) -> UInt16? {
        switch phase {
        case .connecting, .handshaking: return nil
        case .open, .closing: return 1006
        }
    }

    @Test func sendsAfterAResetDuringTheHandshakeAreRefused() async throws {
        let ws = Self.transport(in: .handshaking)
        try await ws.send(.text("early"))
        #expect(ws.stream.takeWritten().count > 0, "the handshake request")
        ws.stream.fail()
        #expect(ws.ended()?.error?.code == .network)
        await #expect(throws: RealtimeError.self) { try await ws.send(.text("late")) }
    }

    // MARK: - The application ends the attempt

    @Test(arguments: Phase.allCases)
    func closeInEveryPhase(_ phase: Phase) async {
        let ws = Self.transport(in: phase)
        ws.close(code: 1000)
        let refused = await #expect(throws: RealtimeError.self) { try await ws.send(.text("late")) }
        #expect(refused?.code == .notConnected)
        switch phase {
        case .connecting, .handshaking:
            #expect(ws.ended()?.error?.code == .cancelled)
            #expect(ws.stream.closedByOwner)
        case .open:
            #expect(ws.clientFrames().compactMap(\.closeCode) == [1000])
            #expect(ws.ended() == nil, "the closing handshake runs")
            #expect(!ws.stream.closedByOwner)
        case .closing:
            #expect(ws.clientFrames().isEmpty, "one close frame only")
            #expect(ws.ended() == nil)
        }
    }

    @Test(arguments: Phase.allCases)
    func abortInEveryPhase(_ phase: Phase) {
        let ws = Self.transport(in: phase)
        ws.abort()
        let end = ws.ended()
        #expect(end?.error?.code == .cancelled, "\(String(describing: end))")
        #expect(ws.stream.closedByOwner, "no closing handshake: the socket goes at once")
        #expect(end?.code == Self.codeWithoutACloseFrame(phase), "the going-away code is ours, not the server's")
        if phase == .open {
            #expect(ws.clientFrames().compactMap(\.closeCode) == [1001], "a best-effort going-away frame")
        }
        #expect(ws.loop.pendingTimerCount == 0)
    }

    // MARK: - Close codes: the server's, or 1006

    /// Every way an opened attempt ends, with the close code the end must report (the one in
    /// the server's close frame, 1005 when it had none, 1006 when none came: RFC 6455 §7.1.5)
    /// and the one our close frame carried, which only the error may repeat.
    enum Ending: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case heartbeatTimeout, idleTimeout, closeUnanswered, closeAnswered, reservedOpcode, invalidUTF8, tooBig
        case peerNotReading, reset, endOfFile, abort, serverCloses, serverClosesWithoutCode
        var testDescription: String { rawValue }

        /// The code `ended` reports.
        var reported: UInt16 {
            switch self {
            case .closeAnswered: return 4001
            case .serverCloses: return 4002
            case .serverClosesWithoutCode: return 1005
            default: return 1006
            }
        }

        /// The code of the close frame the client wrote (nil: none; `.some(nil)`: an empty one).
        var sent: UInt16?? {
            switch self {
            case .heartbeatTimeout, .abort: return 1001
            case .closeUnanswered, .closeAnswered: return 4000
            case .reservedOpcode: return 1002
            case .invalidUTF8: return 1007
            case .tooBig: return 1009
            case .peerNotReading: return 1008
            case .serverCloses: return 4002
            case .serverClosesWithoutCode: return .some(nil)
            case .idleTimeout, .reset, .endOfFile: return nil
            }
        }

        var options: WebSocketOptions {
            var options = EmbeddedWebSocket.quietOptions
            switch self {
            case .heartbeatTimeout: options.heartbeat = .ping(every: .seconds(10), missedLimit: 2)
            case .tooBig: options.maxMessageSize = 16
            case .peerNotReading: options.writeTimeout = .seconds(20)
            default: break
            }
            return options
        }

        func play(on ws: EmbeddedWebSocket) async throws {
            switch self {
            case .heartbeatTimeout: ws.advance(by: .seconds(30)) // a frozen server
            case .idleTimeout: ws.advance(by: .seconds(60))
            case .closeUnanswered:
                ws.close(code: 4000, reason: "bye")
                ws.advance(by: .seconds(5))
            case .closeAnswered:
                ws.close(code: 4000, reason: "bye")
                ws.serverSendsClose(code: 4001)
                ws.stream.feedEOF()
            case .reservedOpcode: ws.stream.feed([0x83, 0x00])
            case .invalidUTF8: ws.stream.feed([0x81, 0x01, 0xFF])
            case .tooBig: ws.serverSends(text: String(repeating: "x", count: 32))
            case .peerNotReading:
                ws.stream.kernelCapacity = 4096
                try await ws.send(.binary([UInt8](repeating: 7, count: 64 << 10)))
                ws.advance(by: .seconds(25))
            case .reset: ws.stream.fail()
            case .endOfFile: ws.stream.feedEOF()
            case .abort: ws.abort()
            case .serverCloses:
                ws.serverSendsClose(code: 4002)
                ws.stream.feedEOF()
            case .serverClosesWithoutCode:
                ws.stream.feed([0x88, 0x00])
                ws.stream.feedEOF()
            }
        }
    }

    @Test(arguments: Ending.allCases)
    func theEndReportsTheServersCloseCodeOnly(_ ending: Ending) async throws {
        let ws = EmbeddedWebSocket(options: ending.options) { $0.idleTimeout = .seconds(60) }
        #expect(ws.open() != nil)
        try await ending.play(on: ws)
        let end = try #require(ws.ended())
        #expect(end.code == ending.reported, "\(end)")
        // A peer that does not read never gets our close frame: the kernel's buffer is full.
        if ending != .peerNotReading {
            let sent = ws.clientFrames().compactMap(\.closeCode)
            #expect(sent == (ending.sent.map { [$0] } ?? []), "the close frame we wrote")
        }
        if let error = end.error, error.code != .cancelled, error.code != .remoteClosed, let ours = ending.sent {
            #expect(error.closeCode == ours, "our code is the error's: \(error)")
        }
    }

    @Test func anAttemptThatNeverOpenedReportsNoCloseCode() {
        let ws = EmbeddedWebSocket()
        ws.start()
        ws.stream.acceptConnection()
        _ = ws.stream.takeWritten()
        ws.stream.feed("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
        let end = ws.ended()
        #expect(end?.error?.status == 403, "\(String(describing: end))")
        #expect(end?.code == nil)
    }

    @Test func consumerThatStopsIteratingClosesTheConnection() async {
        let ws = EmbeddedWebSocket()
        #expect(ws.open() != nil)
        ws.delivered?.terminate()
        ws.loop.run()
        #expect(ws.clientFrames().compactMap(\.closeCode) == [1000])
        let refused = await #expect(throws: RealtimeError.self) { try await ws.send(.text("x")) }
        #expect(refused?.code == .notConnected)
    }

    // MARK: - The send path against the kernel

    @Test func shortWritesDeliverEveryFrameInOrder() async throws {
        let ws = EmbeddedWebSocket()
        #expect(ws.open() != nil)
        ws.stream.maxWriteSize = 7
        let callsBefore = ws.stream.writeCalls
        let texts = (0..<20).map { "message \($0) " + String(repeating: "x", count: $0 * 3) }
        for text in texts { try await ws.send(.text(text)) }
        let received = ws.clientFrames().compactMap { output -> String? in
            if case .text(let bytes) = output { return String(decoding: bytes, as: UTF8.self) }
            return nil
        }
        #expect(received == texts)
        #expect(ws.stream.writeCalls - callsBefore > texts.count, "the kernel took each write in pieces")
        #expect(ws.stream.pendingWriteBytes == 0)
    }

    // MARK: - Back-pressure

    @Test func fullConsumerBufferPausesReadingUntilItDrains() {
        let ws = EmbeddedWebSocket { $0.eventBufferCapacity = 4 }
        #expect(ws.open() != nil)
        var burst: [UInt8] = []
        for i in 0..<20 { burst += ws.serverFrame(text: "m\(i)") }
        ws.stream.feed(burst)
        #expect(ws.stream.readsPaused, "the consumer's buffer is full: the socket is not read")
        ws.serverSends(text: "after")
        var texts: [String] = []
        for _ in 0..<50 {
            let batch = ws.events().compactMap(\.text)
            if batch.isEmpty { break }
            texts += batch
        }
        #expect(texts == (0..<20).map { "m\($0)" } + ["after"], "everything, in order, after the pause")
        #expect(!ws.stream.readsPaused)
    }

    @Test func closingReadsOnEvenWhileTheConsumerIsFull() {
        let ws = EmbeddedWebSocket { $0.eventBufferCapacity = 2 }
        #expect(ws.open() != nil)
        var burst: [UInt8] = []
        for i in 0..<10 { burst += ws.serverFrame(text: "m\(i)") }
        ws.stream.feed(burst)
        #expect(ws.stream.readsPaused)
        ws.close(code: 1000)
        #expect(!ws.stream.readsPaused, "the server's close frame must be read")
        ws.serverSendsClose()
        ws.stream.feedEOF()
        var sawEnd = false
        for _ in 0..<50 where !sawEnd {
            sawEnd = ws.events().contains { if case .ended = $0 { return true } else { return false } }
        }
        #expect(sawEnd)
    }
}
