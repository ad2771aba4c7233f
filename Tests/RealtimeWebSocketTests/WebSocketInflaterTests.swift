import Testing
import RealtimeCore
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// permessage-deflate decompression (RFC 7692 §7.2.2): the RFC's examples, fragments,
/// context rules and the decompressed-size bound.
@Suite(.timeLimit(.minutes(1))) struct WebSocketInflaterTests {
    static let hello = Array("Hello".utf8)

    static func inflater(bits: Int = 15, noContextTakeover: Bool = false, max: Int = 1 << 20) throws -> WebSocketInflater {
        try WebSocketInflater(windowBits: bits, noContextTakeover: noContextTakeover, maxMessageSize: max)
    }

    /// Inflates one unfragmented compressed text message.
    static func message(_ inflater: WebSocketInflater, _ payload: [UInt8]) throws(RealtimeError) -> [UInt8] {
        try inflater.inflate(WebSocketFrame(rsv1: true, opcode: .text, payload: payload)).payload
    }

    @Test(arguments: [
        // §7.2.3.1: one compressed frame.
        [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00] as [UInt8],
        // §7.2.3.3: a DEFLATE block with no compression.
        [0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00],
        // §7.2.3.4: a block with BFINAL set.
        [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00],
        // §7.2.3.5: two DEFLATE blocks in one message.
        [0xF2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xCA, 0xC9, 0xC9, 0x07, 0x00],
    ])
    func rfcExamples(payload: [UInt8]) throws {
        let inflater = try Self.inflater()
        #expect(try Self.message(inflater, payload) == Self.hello)
        // The context survives (or, after BFINAL, restarts) cleanly for the next message.
        #expect(try Self.message(inflater, [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]) == Self.hello)
    }

    /// §7.2.3.1, fragmented: RSV1 on the first frame only, the stream spans both frames.
    @Test func rfcExampleFragmented() throws {
        let inflater = try Self.inflater()
        let first = try inflater.inflate(WebSocketFrame(fin: false, rsv1: true, opcode: .text, payload: [0xF2, 0x48, 0xCD]))
        let second = try inflater.inflate(WebSocketFrame(fin: true, opcode: .continuation, payload: [0xC9, 0xC9, 0x07, 0x00]))
        #expect(!first.rsv1)
        #expect(first.payload + second.payload == Self.hello)
    }

    /// §7.2.3.2: the second "Hello" refers into the window the first one filled.
    @Test func rfcExampleSharedWindow() throws {
        let inflater = try Self.inflater()
        #expect(try Self.message(inflater, [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]) == Self.hello)
        #expect(try Self.message(inflater, [0xF2, 0x00, 0x11, 0x00, 0x00]) == Self.hello)
    }

    /// With server_no_context_takeover the window is dropped after each message, so a back
    /// reference into the previous message is invalid data (1007).
    @Test func noContextTakeoverDropsTheWindow() throws {
        let inflater = try Self.inflater(noContextTakeover: true)
        #expect(try Self.message(inflater, [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]) == Self.hello)
        do {
            _ = try Self.message(inflater, [0xF2, 0x00, 0x11, 0x00, 0x00])
            Issue.record("a reference into a dropped window must fail")
        } catch {
            #expect(error.closeCode == 1007)
        }
    }

    @Test func uncompressedMessagesAndControlFramesPassThrough() throws {
        let inflater = try Self.inflater()
        let plain = WebSocketFrame(opcode: .text, payload: Self.hello)
        #expect(try inflater.inflate(plain) == plain)
        let ping = WebSocketFrame(opcode: .ping, payload: [1, 2])
        #expect(try inflater.inflate(ping) == ping)
        // A ping between the fragments of a compressed message leaves the stream alone.
        let first = try inflater.inflate(WebSocketFrame(fin: false, rsv1: true, opcode: .text, payload: [0xF2, 0x48, 0xCD]))
        #expect(try inflater.inflate(ping) == ping)
        let rest = try inflater.inflate(WebSocketFrame(fin: true, opcode: .continuation, payload: [0xC9, 0xC9, 0x07, 0x00]))
        #expect(first.payload + rest.payload == Self.hello)
        // The next uncompressed message is left alone too.
        #expect(try inflater.inflate(plain) == plain)
    }

    @Test func invalidDataIs1007() throws {
        let inflater = try Self.inflater()
        do {
            _ = try Self.message(inflater, [0xFF, 0xFF, 0xFF, 0xFF, 0x00])
            Issue.record("expected invalid data")
        } catch {
            #expect(error.code == .protocolViolation)
            #expect(error.closeCode == 1007)
        }
    }

    /// A decompression bomb: 8 MiB of zeros compress to about 8 KiB; with a 1 MiB limit the
    /// inflater stops just past the limit and fails with messageTooLarge / 1009.
    @Test(arguments: [true, false])
    func decompressionBombIsBounded(fragmented: Bool) throws {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 9)
        let bomb = try deflater.compress([UInt8](repeating: 0, count: 8 << 20))
        #expect(bomb.count < 16 << 10)
        let inflater = try Self.inflater(max: 1 << 20)
        do {
            if fragmented {
                let half = bomb.count / 2
                _ = try inflater.inflate(WebSocketFrame(fin: false, rsv1: true, opcode: .binary, payload: Array(bomb[..<half])))
                _ = try inflater.inflate(WebSocketFrame(fin: true, opcode: .continuation, payload: Array(bomb[half...])))
            } else {
                _ = try inflater.inflate(WebSocketFrame(rsv1: true, opcode: .binary, payload: bomb))
            }
            Issue.record("expected messageTooLarge")
        } catch {
            #expect(error.code == .messageTooLarge)
            #expect(error.closeCode == 1009)
        }
    }

    @Test func messageExactlyAtTheLimitIsAccepted() throws {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 6)
        let inflater = try Self.inflater(max: 100_000)
        let data = [UInt8](repeating: 7, count: 100_000)
        #expect(try inflater.inflate(WebSocketFrame(rsv1: true, opcode: .binary, payload: deflater.compress(data))).payload == data)
    }

    /// server_max_window_bits=8: zlib-based servers deflate with 9 bits anyway, so the
    /// inflater uses at least 9 and accepts their output.
    @Test func eightBitWindowIsInflatedWithNine() throws {
        let inflater = try Self.inflater(bits: 8)
        #expect(inflater.windowBits == 9)
        let deflater = try WebSocketDeflater(windowBits: 9, noContextTakeover: false, level: 6)
        var generator = SeededGenerator(seed: 8)
        let data = (0..<4000).map { _ in UInt8.random(in: 97...100, using: &generator) }
        #expect(try Self.message(inflater, deflater.compress(data)) == data)
    }
}
