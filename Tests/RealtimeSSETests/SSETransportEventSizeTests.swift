#if os(Linux)
@_spi(Transport) import RealtimeCore
import RealtimeIO
@_spi(Transport) import RealtimeSSE
import RealtimeTestServer
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Event data of every size class the transport stores differently arrives byte-exact and in
/// order: small events sharing a pooled block across batches, data that just fits or just
/// misses the block, data bigger than a block (a block of its own), data over the arena limit
/// (decoded at once), and empty data, interleaved and with multi-byte text.
@Suite("SSETransport: event sizes", .timeLimit(.minutes(1)))
struct SSETransportEventSizeTests {
    static func payload(_ size: Int, seed: Int) -> String {
        // ASCII with a two-byte code point every 97 bytes, cut to exactly `size` bytes.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var i = seed
        while bytes.count < size {
            if i % 97 == 0, bytes.count + 2 <= size {
                bytes += [0xC3, 0xA9]  // é
            } else {
                bytes.append(UInt8(ascii: "a") + UInt8(i % 26))
            }
            i += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("sizes around the pooled block and the arena limit, interleaved")
    func everySizeClassArrivesExactly() async throws {
        let block = SSEArenaPool.shared.blockSize
        let sizes = [
            0, 1, 100, block - 1, block, block + 1, 5, 40_000, 3, 64 * 1024, 64 * 1024 + 1, 7, 200_000, 0, 12,
        ] + Array(repeating: 4096, count: 40) + [block / 2, block / 2, block / 2 + 1, 1]
        let expected = sizes.enumerated().map { Self.payload($0.element, seed: $0.offset) }
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        server.setHandler(path: "/sizes") { writer in
            try writer.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            for (i, text) in expected.enumerated() {
                try writer.write("id: \(i)\ndata: \(text)\n\n")
            }
            try writer.finish()
        }
        let r = await run(SSETransport(request: request(server.url("/sizes")) { $0.eventBufferCapacity = 8 }))
        #expect(r.ids == expected.indices.map { String($0) })
        #expect(r.texts.count == expected.count)
        for (i, (got, want)) in zip(r.texts, expected).enumerated() where got != want {
            Issue.record("event \(i) (\(sizes[i]) bytes): got \(got.utf8.count) bytes")
        }
        #expect(r.end?.clean == true)
    }
}
#endif
