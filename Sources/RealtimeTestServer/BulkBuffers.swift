import RealtimeCore

/// Pre-generated `/bulk` payloads, one per event size, built once and shared by all
/// connections so the benchmark measures the client, not the server's formatting.
final class BulkBuffers: Sendable {
    /// `data: ` + one payload byte + `\n\n`.
    static let minimumEventSize = 9
    /// Size of one pre-generated buffer, bytes (rounded down to whole events).
    static let bufferSize = 256 * 1024

    private let buffers = LockedValue<[Int: [UInt8]]>([:])

    /// Whole events of exactly `eventSize` bytes: `data: ` + printable payload + `\n\n`.
    func buffer(eventSize: Int) -> [UInt8] {
        if let cached = buffers.withLock({ $0[eventSize] }) { return cached }
        let payloadSize = eventSize - 8
        var event = Array("data: ".utf8)
        for i in 0..<payloadSize { event.append(UInt8(ascii: "a") + UInt8(i % 26)) }
        event += [10, 10]
        var buffer: [UInt8] = []
        let events = max(1, Self.bufferSize / eventSize)
        buffer.reserveCapacity(events * eventSize)
        for _ in 0..<events { buffer += event }
        buffers.withLock { $0[eventSize] = buffer }
        return buffer
    }
}
