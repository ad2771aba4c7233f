import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTesting
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// permessage-deflate (RFC 7692) on the production WebSocket connection, on the embedded loop:
/// the RFC's examples inflated, RSV1 where it is not allowed, our outgoing messages within the
/// window the server allows, and an acceptance the client cannot honour.
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedCompressionTests {
    static let accepted = "Sec-WebSocket-Extensions: permessage-deflate\r\n"

    static var deflating: WebSocketOptions {
        var options = EmbeddedWebSocket.quietOptions
        options.compression = .default
        return options
    }

    /// RFC 7692 §7.2.3.1 and §7.2.3.2 on the wire: "Hello" compressed, then the same message
    /// referring back into the shared window, then "Hello" fragmented across two frames.
    @Test(arguments: [Chunking.whole, .byteByByte, .random(seed: 5)])
    func inflatesTheRFCExamples(chunking: Chunking) {
        let ws = EmbeddedWebSocket(options: Self.deflating)
        #expect(ws.open(extraHeaders: Self.accepted)?.extensions == ["permessage-deflate"])
        let frames: [UInt8] = [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
            + [0xC1, 0x05, 0xF2, 0x00, 0x11, 0x00, 0x00]
            + [0x41, 0x03, 0xF2, 0x48, 0xCD, 0x80, 0x04, 0xC9, 0xC9, 0x07, 0x00]
        for chunk in chunking.split(frames) { ws.stream.feed(Array(chunk)) }
        #expect(ws.events().compactMap(\.text) == ["Hello", "Hello", "Hello"])
    }

    @Test(arguments: [
        [0xC9, 0x00] as [UInt8],  // ping with RSV1
        [0x41, 0x03, 0xF2, 0x48, 0xCD, 0xC0, 0x04, 0xC9, 0xC9, 0x07, 0x00],  // RSV1 on a continuation
    ])
    func rsv1OnAControlFrameOrAContinuationIs1002(frames: [UInt8]) throws {
        let ws = EmbeddedWebSocket(options: Self.deflating)
        #expect(ws.open(extraHeaders: Self.accepted) != nil)
        ws.stream.feed(frames)
        #expect(ws.clientFrames().compactMap(\.closeCode) == [1002])
        let end = try #require(ws.ended())
        #expect(end.error?.code == .protocolViolation)
        #expect(end.error?.closeCode == 1002 && end.code == 1006, "1002 is ours; the server sent no close frame")
    }

    /// Compression disabled: a compressed frame is a protocol violation (RFC 6455 §5.2).
    @Test func rsv1WithoutNegotiationIs1002() throws {
        let ws = EmbeddedWebSocket()
        #expect(ws.open() != nil)
        ws.stream.feed([0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        let end = try #require(ws.ended())
        #expect(end.error?.code == .protocolViolation && end.error?.closeCode == 1002)
        #expect(ws.events().compactMap(\.text).isEmpty)
    }

    /// Our outgoing messages: compressed (RSV1) when deflate is agreed, sent plain when the
    /// server limits our window to 8 bits (zlib cannot deflate with a 256-byte window; an
    /// uncompressed message is always allowed, RFC 7692 §6).
    @Test(arguments: [("", UInt8(0xC1)), ("; client_max_window_bits=8", UInt8(0x81)), ("; client_max_window_bits=9", UInt8(0xC1))])
    func outgoingMessagesHonourTheClientWindow(parameters: String, firstByte: UInt8) async throws {
        let ws = EmbeddedWebSocket(options: Self.deflating)
        #expect(ws.open(extraHeaders: "Sec-WebSocket-Extensions: permessage-deflate\(parameters)\r\n") != nil)
        try await ws.send(.text(String(repeating: "hello ", count: 50)))
        let bytes = ws.stream.takeWritten()
        #expect(bytes.first == firstByte)
        // Masked, and a 300-byte text compresses below 126 bytes (7-bit length) only when deflated.
        let second = try #require(bytes.dropFirst().first)
        #expect(second & 0x80 != 0)
        #expect((second & 0x7F < 126) == (firstByte == 0xC1))
    }

    /// A response with an unknown permessage-deflate parameter, or permessage-deflate when we
    /// offered nothing, fails the handshake with a typed error before `opened`.
    @Test(arguments: [true, false])
    func anAcceptanceTheClientCannotHonourFailsTheHandshake(offered: Bool) {
        let ws = EmbeddedWebSocket(options: offered ? Self.deflating : EmbeddedWebSocket.quietOptions)
        ws.start()
        ws.stream.acceptConnection()
        ws.acceptHandshake(extraHeaders: offered ? "Sec-WebSocket-Extensions: permessage-deflate; unknown_param\r\n" : Self.accepted)
        let events = ws.events()
        #expect(!events.contains { if case .opened = $0 { true } else { false } })
        let end = events.compactMap { if case .ended(let end) = $0 { end } else { nil } }.first
        #expect(end?.error?.code == .handshake)
    }

    /// Context takeover is kept by default: the same message sent again refers back to the
    /// first and is shorter. With `clientNoContextTakeover` in the offer, our compressor
    /// resets after every message even when the server's answer does not ask for it.
    @Test(arguments: [false, true])
    func ourCompressorKeepsItsContextUnlessTheOfferSaysNot(clientNoContextTakeover: Bool) async throws {
        var deflate = WebSocketDeflateOptions()
        deflate.clientNoContextTakeover = clientNoContextTakeover
        var options = EmbeddedWebSocket.quietOptions
        options.compression = .permessageDeflate(deflate)
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open(extraHeaders: Self.accepted) != nil)
        let text = #"{"symbol":"ACME","price":101.25,"venue":"XNYS","side":"buy","size":300}"#
        try await ws.send(.text(text))
        let first = ws.stream.takeWritten()
        try await ws.send(.text(text))
        let second = ws.stream.takeWritten()
        #expect(first.first == 0xC1 && second.first == 0xC1, "both compressed")
        if clientNoContextTakeover {
            #expect(second.count == first.count, "compressed from scratch both times")
        } else {
            #expect(second.count < first.count, "the second refers back to the first")
        }
    }

    /// A compressed message is bounded by `maxMessageSize` once inflated (1009,
    /// `message_too_large`), and compressed data that does not inflate closes with 1007.
    @Test(arguments: [
        ([0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00] as [UInt8], RealtimeError.Code.messageTooLarge, UInt16(1009)),
        ([0xC1, 0x01, 0xFF], .protocolViolation, 1007)  // a reserved block type,
    ])
    func aBadCompressedMessageClosesWithItsCode(frame: [UInt8], code: RealtimeError.Code, closeCode: UInt16) throws {
        var options = Self.deflating
        options.maxMessageSize = 4  // "Hello" inflates to 5 bytes
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open(extraHeaders: Self.accepted) != nil)
        ws.stream.feed(frame)
        #expect(ws.clientFrames().compactMap(\.closeCode) == [closeCode])
        let end = try #require(ws.ended())
        #expect(end.error?.code == code && end.error?.closeCode == closeCode, "\(String(describing: end.error))")
        #expect(ws.events().compactMap(\.text).isEmpty)
    }
}
