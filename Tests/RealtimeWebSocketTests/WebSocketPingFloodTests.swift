import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import RealtimeCore
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// A hostile peer that floods pings and never reads: the client must not queue a pong per
/// ping (RFC 6455 §5.5.3 lets it answer only the most recent one), its memory must stay
/// flat, and the connection must fail with `peer_not_reading`.
@Suite(.timeLimit(.minutes(1))) struct WebSocketPingFloodTests {
    /// Writes 125-byte pings as fast as the client takes them, for at most `seconds`, and
    /// never reads (its receive buffer is kept small so the client's writes stall early).
    static func flood(_ fd: Int32, seconds: Double) {
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var frames: [UInt8] = []
        for _ in 0..<512 { frames += [0x89, 125] + [UInt8](repeating: 0x41, count: 125) }
        let deadline = Date().addingTimeInterval(seconds)
        var offset = 0 // a send may stop mid-frame: the next one goes on from there
        while Date() < deadline {
            let n = frames.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK { break } // the client is gone
            if n > 0 { offset = (offset + n) % frames.count }
        }
        ScriptedServer.reset(fd)
    }

    @Test func pingFloodFromAPeerThatNeverReads() async throws {
        let server = try ScriptedServer { fd in Self.flood(fd, seconds: 8) }
        let peak = LockedValue(0)
        let baseline = ProcessResources.residentBytes
        let sampling = Task.detached {
            while !Task.isCancelled {
                let now = ProcessResources.residentBytes
                peak.withLock { $0 = max($0, now) }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        defer { sampling.cancel() }
        try await withDeadline(20) {
            let probe = TransportProbe(server.url) { $0.idleTimeout = nil }
            #expect(await probe.opened() != nil)
            let start = ContinuousClock.now
            let (end, _) = await probe.ended()
            let elapsed = ContinuousClock.now - start
            let growth = peak.withLock { $0 } - baseline
            // Measured on loopback: with a pong queued per ping the client grew by ~25 MiB/s
            // (+196 MiB over the 8 s flood, debug build) and never failed; now the error
            // arrives within a second with RSS within a few MiB of where it was.
            #expect(end?.error?.code == .peerNotReading, "\(String(describing: end))")
            #expect(end?.error?.closeCode == 1008)
            #expect(elapsed < .seconds(6), "the error arrives while the peer still floods (took \(elapsed))")
            #expect(growth < 64 << 20, "memory stays flat (peak RSS +\(growth >> 20) MiB)")
        }
    }
}
