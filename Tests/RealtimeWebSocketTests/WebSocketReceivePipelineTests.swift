import Testing
import RealtimeCore
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// The connection's receive pipeline (decoder → zlib inflater → assembler → UTF-8), the same
/// `WebSocketReceiver<WebSocketInflater?>` value the connection runs, fed server frames in
/// every chunking.
@Suite(.timeLimit(.minutes(1))) struct WebSocketReceivePipelineTests {
    typealias Receiver = WebSocketReceiver<WebSocketInflater?>

    static func receiver(deflate: Bool, maxMessageSize: Int = 1 << 20) throws -> Receiver {
        var receiver = Receiver(role: .client, maxMessageSize: maxMessageSize, inflater: nil)
        if deflate {
            receiver.inflater = try WebSocketInflater(windowBits: 15, noContextTakeover: false, maxMessageSize: maxMessageSize)
            receiver.decoder.allowedReservedBits = 0x40
        }
        return receiver
    }

    /// Server frames (unmasked): a compressed text message in two fragments with a ping
    /// between them, an uncompressed binary message, a compressed text, and a close.
    static func wire() throws -> [UInt8] {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 6)
        var encoder = WebSocketFrameEncoder(role: .server)
        let first = try deflater.compress(Array("héllo, wörld — ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 300))
        let split = first.count / 2
        var out: [UInt8] = []
        encoder.encode(opcode: .text, payload: first[..<split], fin: false, rsv1: true, into: &out)
        encoder.encode(opcode: .ping, payload: [9], into: &out)
        encoder.encode(opcode: .continuation, payload: first[split...], into: &out)
        encoder.encode(opcode: .binary, payload: [0, 1, 2], into: &out)
        encoder.encode(opcode: .text, payload: try deflater.compress(Array("second".utf8)), rsv1: true, into: &out)
        out += encoder.close(code: 1000, reason: "done")
        return out
    }

    static func run(_ receiver: inout Receiver, _ bytes: [UInt8], chunking: Chunking) throws(RealtimeError) -> [WebSocketMessageAssembler.Output] {
        var outputs: [WebSocketMessageAssembler.Output] = []
        for chunk in chunking.split(bytes) { outputs += try receiver.receive(chunk) }
        return outputs
    }

    @Test(arguments: Chunking.all)
    func compressedAndPlainMessagesInAnyChunking(chunking: Chunking) throws {
        var receiver = try Self.receiver(deflate: true)
        let outputs = try Self.run(&receiver, Self.wire(), chunking: chunking)
        #expect(outputs == [
            .ping([9]),
            .text(Array("héllo, wörld — ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 300)),
            .binary([0, 1, 2]),
            .text(Array("second".utf8)),
            .close(code: 1000, reason: "done"),
        ])
    }

    /// Without the negotiated extension, RSV1 is a protocol error (RFC 6455 §5.2).
    @Test func compressedFrameWithoutTheExtensionIs1002() throws {
        var receiver = try Self.receiver(deflate: false)
        let wire = try Self.wire()
        do {
            _ = try Self.run(&receiver, wire, chunking: .whole)
            Issue.record("expected a protocol violation")
        } catch {
            #expect(error.code == .protocolViolation && error.closeCode == 1002)
        }
    }

    /// Invalid UTF-8 inside a compressed message is caught after inflation (1007), and the
    /// early check on a partial frame leaves compressed bytes alone (they are not text yet).
    @Test(arguments: Chunking.all)
    func invalidUTF8AfterInflationIs1007(chunking: Chunking) throws {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 6)
        var encoder = WebSocketFrameEncoder(role: .server)
        var wire: [UInt8] = []
        encoder.encode(opcode: .text, payload: try deflater.compress([0x61, 0xC3, 0x28, 0x62]), rsv1: true, into: &wire)
        var receiver = try Self.receiver(deflate: true)
        do {
            _ = try Self.run(&receiver, wire, chunking: chunking)
            Issue.record("expected invalid UTF-8")
        } catch {
            #expect(error.code == .invalidUTF8)
            #expect(error.closeCode == 1007)
        }
    }

    /// A compression bomb stops at the message limit, whatever the chunking.
    @Test(arguments: [Chunking.whole, .fixed(1000), .random(seed: 3)])
    func bombStopsAtTheMessageLimit(chunking: Chunking) throws {
        let deflater = try WebSocketDeflater(windowBits: 15, noContextTakeover: false, level: 9)
        var encoder = WebSocketFrameEncoder(role: .server)
        var wire: [UInt8] = []
        encoder.encode(opcode: .binary, payload: try deflater.compress([UInt8](repeating: 0, count: 4 << 20)), rsv1: true, into: &wire)
        var receiver = try Self.receiver(deflate: true, maxMessageSize: 64 << 10)
        do {
            _ = try Self.run(&receiver, wire, chunking: chunking)
            Issue.record("expected messageTooLarge")
        } catch {
            #expect(error.code == .messageTooLarge)
            #expect(error.closeCode == 1009)
        }
    }
}
