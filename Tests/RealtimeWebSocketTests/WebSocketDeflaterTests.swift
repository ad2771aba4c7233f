import Testing
import RealtimeCore
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// permessage-deflate compression (RFC 7692 §7.2.1), checked against the RFC's examples.
@Suite(.timeLimit(.minutes(1))) struct WebSocketDeflaterTests {
    static let hello = Array("Hello".utf8)

    /// §7.2.3.1 and §7.2.3.2: "Hello" compresses to f2 48 cd c9 c9 07 00; with context
    /// takeover the same message again refers back into the window: f2 00 11 00 00.
    @Test func rfcExamplesWithContextTakeover() throws {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 6)
        #expect(try deflater.compress(Self.hello) == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(try deflater.compress(Self.hello) == [0xF2, 0x00, 0x11, 0x00, 0x00])
    }

    /// `client_no_context_takeover` (§7.1.1.2): every message compresses on its own.
    @Test func noContextTakeoverResetsAfterEachMessage() throws {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: true, level: 6)
        let first = try deflater.compress(Self.hello)
        #expect(first == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(try deflater.compress(Self.hello) == first)
    }

    /// zlib's state exists from the first message sent; without context takeover it is freed
    /// after every message, with it kept (its window is the context).
    @Test func stateExistsOnlyWhileItIsNeeded() throws {
        let resetting = try WebSocketDeflater(windowBits: 15, noContextTakeover: true, level: 6)
        #expect(!resetting.holdsState)
        _ = try resetting.compress(Self.hello)
        #expect(!resetting.holdsState)
        let keeping = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 6)
        #expect(!keeping.holdsState)
        _ = try keeping.compress(Self.hello)
        #expect(keeping.holdsState)
    }

    @Test func emptyMessageRoundTrips() throws {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 6)
        let inflater = try WebSocketInflater(windowBits: 15, noContextTakeover: false, maxMessageSize: 100)
        let compressed = try deflater.compress([])
        #expect(compressed.count <= 2)
        let frame = try inflater.inflate(WebSocketFrame(rsv1: true, opcode: .binary, payload: compressed))
        #expect(frame.payload.isEmpty && !frame.rsv1)
    }

    /// With context takeover, an empty message after another one: zlib has nothing left to
    /// flush (a second sync flush is a Z_BUF_ERROR with no output), and the message is the
    /// single byte 0x00 of RFC 7692 §7.2.3.6; the window survives for the next message.
    @Test func emptyMessageAfterAnotherKeepsTheContext() throws {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 6)
        let inflater = try WebSocketInflater(windowBits: 15, noContextTakeover: false, maxMessageSize: 100)
        for payload in [Self.hello, [], Self.hello, []] {
            let compressed = try deflater.compress(payload)
            let frame = try inflater.inflate(WebSocketFrame(rsv1: true, opcode: .binary, payload: compressed))
            #expect(frame.payload == payload)
        }
        #expect(try deflater.compress(Self.hello).count < 7, "the window carried over: a back-reference, not the literal text")
    }

    /// A message limit of `Int.max` (no limit) inflates without overflowing the budget.
    @Test func unlimitedMessageSizeInflates() throws {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 6)
        let inflater = try WebSocketInflater(windowBits: 15, noContextTakeover: false, maxMessageSize: .max)
        let frame = try inflater.inflate(WebSocketFrame(rsv1: true, opcode: .text, payload: try deflater.compress(Self.hello)))
        #expect(frame.payload == Self.hello)
    }

    /// Every window the client may be given (9–15) round-trips through an inflater with the
    /// same window, over data with long-distance repeats (so small windows matter).
    @Test(arguments: 9...15)
    func roundTripsWithEachWindow(bits: Int) throws {
        var generator = SeededGenerator(seed: UInt64(bits))
        let words = (0..<64).map { _ in String((0..<8).map { _ in Character(Unicode.Scalar(UInt8.random(in: 97...122, using: &generator))) }) }
        let deflater = try WebSocketDeflater(windowBits: bits, noContextTakeover: false, level: 6)
        let inflater = try WebSocketInflater(windowBits: bits, noContextTakeover: false, maxMessageSize: 1 << 20)
        var wire = 0, plain = 0
        for _ in 0..<20 {
            let text = (0..<2000).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
            let bytes = Array(text.utf8)
            let compressed = try deflater.compress(bytes)
            let frame = try inflater.inflate(WebSocketFrame(rsv1: true, opcode: .text, payload: compressed))
            #expect(frame.payload == bytes)
            wire += compressed.count
            plain += bytes.count
        }
        #expect(wire < plain / 2)
    }
}
