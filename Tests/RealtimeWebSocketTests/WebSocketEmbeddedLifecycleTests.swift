import Testing
import RealtimeCore
import RealtimeIOTestSupport
@testable import RealtimeWebSocket

/// How a WebSocket attempt ends in each phase (connecting, handshaking, open, closing) when
/// the peer closes, the network resets, or the application closes or aborts; and the send
/// and receive paths against a kernel that takes little or nothing. All on the embedded loop.
@Suite(.timeLimit(.minutes(1))) struct WebSocketEmbeddedLifecycleTests {
    enum Phase: CaseIterable, Sendable {
        case connecting, handshaking, open, closing
    }

    /// A transport brought to `phase`.
    static func transport(in phase: Phase, options: WebSocketTransport.Options = EmbeddedWebSocket.quietOptions) -> EmbeddedWebSocket {
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
        #expect(ws.loop.pendingTimerCount == 0)
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
        if phase == .open {
            #expect(end?.code == 1001)
            #expect(ws.clientFrames().compactMap(\.closeCode) == [1001], "a best-effort going-away frame")
        }
        #expect(ws.loop.pendingTimerCount == 0)
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
