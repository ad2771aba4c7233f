import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTesting
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// A read that holds valid messages and then a frame that breaks the protocol, on the embedded
/// loop: the messages before the violation reach the consumer in order, nothing after it is
/// processed, what the application sends in answer goes out, and only then does the
/// connection fail with the violation's close code (RFC 6455 §7.1.7). An echo client, which
/// Autobahn cases 3.2–5.15 expect to echo the message before the bad frame, does so.
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedReceiveTests {
    /// The window the machine gives the application's answers (its default).
    static let window = WebSocketConnectionStateMachine<ManualLoop.Instant>.Configuration.defaultReplyWindow

    /// A frame that breaks the protocol, and the close code it earns.
    enum Violation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case reservedOpcode, maskedByTheServer, invalidUTF8, controlFrameOver125, reservedBits, continuationWithoutMessage
        case messageTooLarge
        var testDescription: String { rawValue }

        var bytes: [UInt8] {
            switch self {
            case .reservedOpcode: return [0x83, 0x00]
            case .maskedByTheServer: return [0x81, 0x81, 1, 2, 3, 4, 0x61 ^ 1] // §5.1: a server never masks
            case .invalidUTF8: return [0x81, 0x03, 0x61, 0xC0, 0x80] // an overlong NUL (§8.1)
            case .controlFrameOver125: return [0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0x61, count: 126)
            case .reservedBits: return [0xC1, 0x01, 0x61] // RSV1 with no extension agreed (§5.2)
            case .continuationWithoutMessage: return [0x80, 0x01, 0x61]
            case .messageTooLarge: return [0x81, 0x7E, 0x01, 0x00] + [UInt8](repeating: 0x61, count: 256)
            }
        }

        var closeCode: UInt16 {
            switch self {
            case .invalidUTF8: return 1007
            case .messageTooLarge: return 1009
            default: return 1002
            }
        }
    }

    static var options: WebSocketOptions {
        var options = EmbeddedWebSocket.quietOptions
        options.maxMessageSize = 128
        return options
    }

    /// Two messages, the violation, then a message that must never be seen.
    static func read(_ ws: EmbeddedWebSocket, _ violation: Violation) -> [UInt8] {
        ws.serverFrame(text: "one") + ws.serverFrame(text: "two") + violation.bytes + ws.serverFrame(text: "after")
    }

    @Test(arguments: Violation.allCases, [Chunking.whole, .byteByByte, .random(seed: 3)])
    func whatPrecedesTheViolationIsDeliveredAndAnsweredThenItFails(_ violation: Violation, chunking: Chunking) async throws {
        let ws = EmbeddedWebSocket(options: Self.options)
        #expect(ws.open() != nil)
        for chunk in chunking.split(Self.read(ws, violation)) { ws.stream.feed(Array(chunk)) }
        #expect(ws.events().compactMap(\.text) == ["one", "two"], "in order, and nothing after the bad frame")
        #expect(ws.stream.readsPaused, "nothing more is read from the peer (§7.1.1)")
        #expect(ws.clientFrames().isEmpty, "no close frame yet")
        // The application answers what it was given, as an echo client does.
        try await ws.send(.text("one"))
        try await ws.send(.text("two"))
        ws.advance(by: Self.window - .nanoseconds(1))
        #expect(ws.ended() == nil)
        ws.advance(by: .nanoseconds(1))
        let frames = ws.clientFrames()
        #expect(frames.compactMap(\.string) == ["one", "two"], "the answers go out first")
        #expect(frames.last?.closeCode == violation.closeCode, "then the close frame: \(frames)")
        let end = try #require(ws.ended())
        #expect(end.error?.closeCode == violation.closeCode && end.code == 1006, "\(end)")
        #expect(ws.events().isEmpty, "nothing after the end")
    }

    /// Bytes that arrive later, in a read of their own, are never processed either.
    @Test func nothingIsReadDuringTheWindow() {
        let ws = EmbeddedWebSocket(options: Self.options)
        #expect(ws.open() != nil)
        ws.stream.feed(ws.serverFrame(text: "one") + Violation.reservedOpcode.bytes)
        ws.serverSends(text: "later")
        ws.serverSendsClose(code: 1000)
        #expect(ws.events().compactMap(\.text) == ["one"])
        ws.advance(by: Self.window)
        #expect(ws.clientFrames().compactMap(\.closeCode) == [1002], "ours, not an echo of the server's")
        let events = ws.events()
        #expect(events.compactMap(\.text).isEmpty)
        #expect(events.contains { if case .ended(let end) = $0 { end.error?.code == .protocolViolation } else { false } })
    }

    /// No message shortly before the violation: the connection fails at once.
    @Test(arguments: [false, true])
    func aViolationWithoutRecentMessagesFailsAtOnce(earlierMessage: Bool) {
        let ws = EmbeddedWebSocket(options: Self.options)
        #expect(ws.open() != nil)
        if earlierMessage {
            ws.serverSends(text: "one")
            #expect(ws.events().compactMap(\.text) == ["one"])
            ws.advance(by: Self.window)
        }
        ws.stream.feed(Violation.reservedOpcode.bytes)
        #expect(ws.clientFrames().compactMap(\.closeCode) == [1002], "no window: nothing to answer")
        #expect(ws.ended()?.error?.code == .protocolViolation)
    }

    /// A message in one read and the violation in the next, at the same instant: the window
    /// counts from the message.
    @Test func theWindowCountsFromTheLastMessage() {
        let ws = EmbeddedWebSocket(options: Self.options)
        #expect(ws.open() != nil)
        ws.serverSends(text: "one")
        ws.advance(by: Self.window / 2)
        ws.stream.feed(Violation.reservedOpcode.bytes)
        #expect(ws.events().compactMap(\.text) == ["one"])
        ws.advance(by: Self.window / 2 - .nanoseconds(1))
        #expect(ws.clientFrames().isEmpty)
        ws.advance(by: .nanoseconds(1))
        #expect(ws.clientFrames().compactMap(\.closeCode) == [1002])
    }

    /// `close()` or `abort()` during the window: the violation is what ends the attempt, with
    /// its close code, at once.
    @Test(arguments: [false, true])
    func closeOrAbortDuringTheWindowFailsAtOnce(abort: Bool) {
        let ws = EmbeddedWebSocket(options: Self.options)
        #expect(ws.open() != nil)
        ws.stream.feed(ws.serverFrame(text: "one") + Violation.invalidUTF8.bytes)
        #expect(ws.events().compactMap(\.text) == ["one"])
        if abort { ws.abort() } else { ws.close(code: 1000) }
        #expect(ws.clientFrames().compactMap(\.closeCode) == [1007], "the violation's code, not the application's")
        let end = ws.ended()
        #expect(end?.error?.code == .invalidUTF8 && end?.code == 1006, "\(String(describing: end))")
        #expect(ws.loop.pendingTimerCount == 0)
    }
}
