import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import RealtimeCore
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// Heartbeat modes on loopback against a server that talks every 0.3 s: in fixed-interval
/// mode it still receives a ping every interval; in when-idle mode it receives none.
@Suite(.timeLimit(.minutes(1))) struct WebSocketHeartbeatModeTests {
    /// What the server saw, in seconds since the handshake.
    struct Timeline {
        var talks: [Double] = []
        var pings: [Double] = []

        /// The longest silence between the server's messages: on a machine too loaded for
        /// the server to keep its 0.3 s rhythm, a when-idle ping is legitimate.
        var longestSilence: Double {
            zip(talks, talks.dropFirst()).map { $1 - $0 }.max() ?? .infinity
        }
    }

    /// Sends a text frame every 0.3 s until the client closes (at most 30 s) and records when
    /// client pings arrive.
    static func chattyServer(_ timeline: LockedValue<Timeline>) throws -> ScriptedServer {
        try ScriptedServer { fd in
            var timeout = timeval(tv_sec: 0, tv_usec: 20_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var receiver = WebSocketReceiver(role: .server)
            var encoder = WebSocketFrameEncoder(role: .server)
            let start = Date()
            var nextTalk = start
            var buffer = [UInt8](repeating: 0, count: 4096)
            var closed = false
            while !closed, Date().timeIntervalSince(start) < 30 {
                if Date() >= nextTalk {
                    let frame = encoder.text("tick")
                    _ = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    timeline.withLock { $0.talks.append(Date().timeIntervalSince(start)) }
                    nextTalk = Date().addingTimeInterval(0.3)
                }
                let n = read(fd, &buffer, buffer.count)
                if n == 0 { break }
                guard n > 0, let outputs = try? receiver.receive(buffer[..<n]) else { continue }
                let at = Date().timeIntervalSince(start)
                for output in outputs {
                    if case .ping = output { timeline.withLock { $0.pings.append(at) } }
                    if case .close = output {
                        // Answer the close, then close TCP first, as a server does (RFC 6455 §7.1.1).
                        _ = encoder.close(code: 1000).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        closed = true
                    }
                }
            }
            close(fd)
        }
    }

    static func run(_ heartbeat: HeartbeatPolicy, seconds: Double) async throws -> Timeline {
        let timeline = LockedValue(Timeline())
        let server = try chattyServer(timeline)
        try await withDeadline(40) {
            var options = TransportProbe.quietOptions
            options.heartbeat = heartbeat
            let probe = TransportProbe(server.url, options: options) { $0.idleTimeout = nil }
            #expect(await probe.opened() != nil)
            try await Task.sleep(for: .seconds(seconds))
            probe.transport.close()
            let (end, messages) = await probe.ended()
            #expect(end?.error?.code == .cancelled, "alive all along: \(String(describing: end))")
            #expect(!messages.isEmpty, "the server talked")
        }
        return timeline.withLock { $0 }
    }

    @Test func fixedIntervalPingsAServerThatTalks() async throws {
        // An interval longer than the server's 0.3 s: in when-idle mode it would never ping.
        let seen = try await Self.run(.ping(every: .milliseconds(400), missedLimit: 3, mode: .fixedInterval), seconds: 2.1)
        // Pings at 0.4, 0.8, … 2.0 s: 5 on an idle machine; a loaded one may lose some.
        #expect(seen.pings.count >= 2, "pings at \(seen.pings)")
    }

    @Test func whenIdleSendsNoPingToAServerThatTalks() async throws {
        let seen = try await Self.run(.ping(every: .milliseconds(800), missedLimit: 3, mode: .whenIdle), seconds: 3.3)
        // Only meaningful while the server kept talking well within the interval. Fixed mode
        // would ping about 4 times here; a loop starved for a moment by a loaded machine may
        // see one silence the server did not make, never a rhythm of them.
        if seen.longestSilence < 0.6 {
            #expect(seen.pings.count <= 1, "pings at \(seen.pings), server messages at \(seen.talks)")
        }
    }
}
