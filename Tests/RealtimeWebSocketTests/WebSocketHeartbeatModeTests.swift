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
    /// Sends a text frame every 0.3 s for `seconds` and records when client pings arrive
    /// (seconds since the handshake).
    static func chattyServer(pings: LockedValue<[Double]>, seconds: Double) throws -> ScriptedServer {
        try ScriptedServer { fd in
            var timeout = timeval(tv_sec: 0, tv_usec: 20_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var receiver = WebSocketReceiver(role: .server)
            var encoder = WebSocketFrameEncoder(role: .server)
            let start = Date()
            var nextTalk = start
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date().timeIntervalSince(start) < seconds {
                if Date() >= nextTalk {
                    let frame = encoder.text("tick")
                    _ = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    nextTalk += 0.3
                }
                let n = read(fd, &buffer, buffer.count)
                if n == 0 { break }
                guard n > 0, let outputs = try? receiver.receive(buffer[..<n]) else { continue }
                let at = Date().timeIntervalSince(start)
                for output in outputs { if case .ping = output { pings.withLock { $0.append(at) } } }
            }
            ScriptedServer.reset(fd)
        }
    }

    static func run(_ heartbeat: HeartbeatPolicy, seconds: Double) async throws -> [Double] {
        let pings = LockedValue<[Double]>([])
        let server = try chattyServer(pings: pings, seconds: seconds + 1)
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.heartbeat = heartbeat
            let probe = TransportProbe(server.url, options: options) { $0.idleTimeout = nil }
            #expect(await probe.opened() != nil)
            try await Task.sleep(for: .seconds(seconds))
            probe.transport.close()
            let (end, messages) = await probe.ended()
            #expect(end?.error?.code == .cancelled, "alive all along: \(String(describing: end))")
            #expect(messages.count >= Int(seconds / 0.3) - 1, "the server talked throughout")
        }
        return pings.withLock { $0 }
    }

    @Test func fixedIntervalPingsAServerThatTalks() async throws {
        // An interval longer than the server's 0.3 s: in when-idle mode it would never ping.
        let pings = try await Self.run(.ping(every: .milliseconds(400), missedLimit: 3, mode: .fixedInterval), seconds: 2.1)
        // Pings at 0.4, 0.8, … 2.0 s: 5 on an idle machine; a loaded one may lose one or two.
        #expect(pings.count >= 3, "pings at \(pings)")
        #expect(pings.first.map { $0 < 0.8 } == true, "the first ping one interval after the open: \(pings)")
    }

    @Test func whenIdleSendsNoPingToAServerThatTalks() async throws {
        let pings = try await Self.run(.ping(every: .milliseconds(400), missedLimit: 3, mode: .whenIdle), seconds: 2.1)
        #expect(pings.isEmpty, "pings at \(pings)")
    }
}
