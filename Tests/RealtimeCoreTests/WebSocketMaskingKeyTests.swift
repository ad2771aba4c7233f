import Testing
import RealtimeCore
import RealtimeTestSupport

@Suite(.timeLimit(.minutes(1))) struct WebSocketMaskingKeyTests {
    static func byteLoop(_ bytes: [UInt8], _ key: WebSocketMaskingKey, phase: Int) -> [UInt8] {
        bytes.enumerated().map { $0.element ^ key[phase + $0.offset] }
    }

    @Test func wordLoopMatchesByteLoopForEveryLengthOffsetAndPhase() {
        let key = WebSocketMaskingKey(0x12, 0x34, 0x56, 0x78)
        let data = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        for start in 0..<9 {
            for length in [0, 1, 5, 8, 31, 32, 33, 64, 100, 191] where start + length <= data.count {
                for phase in 0..<4 {
                    var buffer = data
                    buffer.withUnsafeMutableBytes { raw in
                        key.apply(to: UnsafeMutableRawBufferPointer(rebasing: raw[start..<start + length]), phase: phase)
                    }
                    let expected = Array(data[..<start]) + Self.byteLoop(Array(data[start..<start + length]), key, phase: phase) + Array(data[(start + length)...])
                    #expect(buffer == expected, "start \(start) length \(length) phase \(phase)")
                }
            }
        }
    }

    @Test func maskingTwiceRestores() {
        var rng = SeededGenerator(seed: 4)
        let key = WebSocketMaskingKey(using: &rng)
        let original = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        var bytes = original
        key.apply(to: &bytes)
        #expect(bytes != original)
        key.apply(to: &bytes)
        #expect(bytes == original)
    }
}
