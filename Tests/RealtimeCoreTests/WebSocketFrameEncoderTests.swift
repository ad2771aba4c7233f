import Testing
import RealtimeCore
import RealtimeTestSupport

@Suite(.timeLimit(.minutes(1))) struct WebSocketFrameEncoderTests {
    @Test func goldenMaskedTextWithSeededGenerator() {
        // SeededGenerator(seed: 1) first yields 0x910a2dec89025cc1: key bytes c1 5c 02 89.
        var encoder = WebSocketFrameEncoder(role: .client, generator: SeededGenerator(seed: 1))
        #expect(encoder.text("Hello") == [0x81, 0x85, 0xC1, 0x5C, 0x02, 0x89, 0x89, 0x39, 0x6E, 0xE5, 0xAE])
        // A fresh key for the next frame (second output 0xbeeb8da1658eec67: 67 ec 8e 65).
        #expect(encoder.ping([]) == [0x89, 0x80, 0x67, 0xEC, 0x8E, 0x65])
    }

    @Test func goldenServerFramesAreUnmasked() {
        var encoder = WebSocketFrameEncoder(role: .server)
        // RFC 6455 §5.7.
        #expect(encoder.text("Hello") == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(encoder.encode(opcode: .text, payload: Array("Hel".utf8), fin: false) == [0x01, 0x03, 0x48, 0x65, 0x6C])
        #expect(encoder.encode(opcode: .continuation, payload: Array("lo".utf8)) == [0x80, 0x02, 0x6C, 0x6F])
        #expect(encoder.close(code: 1000, reason: "ok") == [0x88, 0x04, 0x03, 0xE8, 0x6F, 0x6B])
        #expect(encoder.close(code: nil) == [0x88, 0x00])
    }

    @Test func rfcMaskedExample() {
        var out: [UInt8] = []
        let frame = WebSocketFrame(opcode: .pong, maskingKey: WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D), payload: Array("Hello".utf8))
        WebSocketFrameEncoder.encode(frame, into: &out)
        #expect(out == [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test(arguments: [0, 1, 3, 7, 8, 31, 32, 33, 125, 126, 65535, 65536, 100_003])
    func roundTripThroughServerDecoder(size: Int) throws {
        var rng = SeededGenerator(seed: UInt64(size))
        let payload = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var encoder = WebSocketFrameEncoder(role: .client, generator: SeededGenerator(seed: 9))
        let wire = encoder.binary(payload)
        #expect(wire[1] & 0x80 != 0)
        var decoder = WebSocketFrameDecoder(role: .server)
        let frames = try decoder.decode(wire)
        #expect(frames.count == 1)
        #expect(frames.first?.payload == payload)
    }

    @Test func closeReasonIsCutAtACodePointBoundary() {
        let reason = String(repeating: "é", count: 100)  // 200 bytes
        let payload = WebSocketFrameEncoder.closePayload(code: 1000, reason: reason)
        #expect(payload.count <= 125)
        #expect(UTF8Validator.isValid(payload.dropFirst(2)))
    }
}
