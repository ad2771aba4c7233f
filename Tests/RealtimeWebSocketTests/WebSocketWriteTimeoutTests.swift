import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import RealtimeCore
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// A peer that talks but never reads, while the application sends: once the kernel has
/// taken no byte for `writeTimeout`, the attempt ends with `peer_not_reading` and the senders
/// held by back-pressure get an error instead of waiting forever.
@Suite(.timeLimit(.minutes(1))) struct WebSocketWriteTimeoutTests {
    /// Sends a short text frame every 50 ms for at most `seconds` and reads nothing (its
    /// receive buffer kept small so the client's writes stall early); stops when the client
    /// is gone.
    static func talkWithoutReading(_ fd: Int32, seconds: Double) {
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let frame: [UInt8] = [0x81, 2, UInt8(ascii: "h"), UInt8(ascii: "i")]
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let n = frame.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 { break } // the client closed: EPIPE / ECONNRESET
            usleep(50_000)
        }
        close(fd)
    }

    @Test func aPeerThatTalksButNeverReadsEndsWithPeerNotReading() async throws {
        let server = try ScriptedServer { fd in Self.talkWithoutReading(fd, seconds: 20) }
        try await withDeadline(30) {
            var options = TransportProbe.quietOptions
            options.writeTimeout = .milliseconds(500)
            options.compression = .disabled
            let probe = TransportProbe(server.url, options: options) { $0.idleTimeout = nil }
            #expect(await probe.opened() != nil)
            // Sends until the connection refuses; each send waits while the outbound queue
            // is full (back-pressure), which is where a sender would wait forever.
            let transport = probe.transport
            let sender = Task { () -> (sent: Int, error: (any Error)?) in
                let payload = [UInt8](repeating: 0x5A, count: 256 << 10)
                for sent in 0..<2000 {
                    do { try await transport.send(.binary(payload)) } catch { return (sent, error) }
                }
                return (2000, nil)
            }
            let start = ContinuousClock.now
            let (end, messages) = await probe.ended()
            let elapsed = ContinuousClock.now - start
            let (sent, error) = await sender.value
            print("Write timeout: ended after \(elapsed) with \(end?.error?.code.description ?? "no error"); \(sent) messages of 256 KiB accepted, \(messages.count) received")
            #expect(end?.error?.code == .peerNotReading, "\(String(describing: end))")
            #expect(end?.error?.closeCode == 1008 && end?.clean == false)
            #expect(!messages.isEmpty, "the peer talked while it did not read")
            #expect(sent < 2000, "the sender was held by back-pressure, then released")
            #expect((error as? RealtimeError)?.code == .notConnected, "\(String(describing: error))")
            // The stall starts once the socket buffers are full; then 0.5 to 0.625 s.
            #expect(elapsed < .seconds(15), "took \(elapsed)")
        }
    }

    /// The defaults' relation at a small scale: a write timeout equal to `TCP_USER_TIMEOUT`.
    /// The kernel drops the shut-window peer about the user timeout after the window closed;
    /// the write timeout applied (two thirds of it) ends the connection first, so the error
    /// is `peer_not_reading`, not the kernel's `network` "connection timed out".
    @Test func peerNotReadingWinsOverTheKernelsUserTimeout() async throws {
        let server = try ScriptedServer { fd in Self.talkWithoutReading(fd, seconds: 30) }
        try await withDeadline(40) {
            var options = TransportProbe.quietOptions
            options.writeTimeout = .seconds(3)
            options.socket.userTimeout = .seconds(3)
            options.socket.keepAlive = nil
            options.compression = .disabled
            let probe = TransportProbe(server.url, options: options) { $0.idleTimeout = nil }
            #expect(await probe.opened() != nil)
            let transport = probe.transport
            let sender = Task {
                let payload = [UInt8](repeating: 0x5A, count: 256 << 10)
                for _ in 0..<2000 {
                    do { try await transport.send(.binary(payload)) } catch { return }
                }
            }
            let (end, _) = await probe.ended()
            await sender.value
            #expect(end?.error?.code == .peerNotReading, "\(String(describing: end))")
        }
    }
}
