#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// What the kernel alone finds of a half-open connection (`iptables DROP` mid-stream), with
/// the library's own detectors (SSE idle timeout, WebSocket heartbeat) switched off: only TCP
/// keepalive and `TCP_USER_TIMEOUT` (tcp(7)). Measured on Linux 6.x:
/// - `TCP_USER_TIMEOUT` bounds how long *sent* data may stay unacknowledged. A receive-only
///   stream sends nothing, so on its own it never fires: the stream just stalls.
/// - With keepalive on, the probes are unacknowledged data: the connection is dropped
///   (`ETIMEDOUT`) at the first keepalive tick (idle, idle + interval, …) at which the user
///   timeout has passed since the last byte received and a probe is out — at least
///   idle + interval (1 s/1 s with 2 s: 2.0 s measured; library defaults 30 s/10 s/30 s: 40 s).
///   Without the user timeout, keepalive alone takes idle + count × interval (10 s here,
///   9 probes).
/// - When the client sends (a WebSocket message, a ping), the user timeout runs from that
///   send, keepalive or not; without it, retransmissions go on for many minutes.
///
/// This is the kernel's behaviour, so it is measured: each scenario keeps one bound, at least
/// 5 s and well below what the connection takes when the option is not applied, and prints
/// the figure.
@Suite(.serialized, .timeLimit(.minutes(3))) struct FaultTCPTimeoutTests {
    /// The kernel-only configuration: no idle timeout, no heartbeat, keepalive as given.
    static func kernelOnly(
        _ c: inout RealtimeClient.Configuration, keepAlive: Bool, userTimeout: Duration
    ) {
        c.idleTimeout = nil
        c.heartbeat = .disabled
        c.sse.tcpUserTimeout = userTimeout
        c.webSocket.socket.userTimeout = userTimeout
        c.sse.tcpKeepAlive = keepAlive ? .init(idle: .seconds(1), interval: .seconds(1)) : nil
        // 9 probes, as curl sets for SSE: without the user timeout both would take 10 s.
        c.webSocket.socket.keepAlive = keepAlive ? .init(idle: .seconds(1), interval: .seconds(1), count: 9) : nil
    }

    @Test func userTimeoutAloneDoesNotDetectAReceiveOnlyHalfOpen() async throws {
        try await FaultRig.run("ua", .sse) { rig in
            try await rig.startServer(count: 10_000, intervalMilliseconds: 20)
            let client = try rig.makeClient { Self.kernelOnly(&$0, keepAlive: false, userTimeout: .seconds(1)) }
            defer { client.close() }
            let log = FaultEventLog(client)
            try await bounded("10 messages: \(log.summary)", seconds: 10) { log.ids.count >= 10 }
            try await rig.dropServerTraffic(true)
            let droppedAt = ContinuousClock.now
            let received = log.ids.count
            await WallTime.hold(for: .seconds(3))
            let noticed = log.firstEnd(after: droppedAt)
            print("Fault sse user-timeout only (1 s), receive-only: \(noticed == nil ? "not detected" : "detected") after 3 s; \(log.ids.count - received) messages after the drop")
            #expect(noticed == nil, "nothing is sent, so TCP_USER_TIMEOUT has nothing to time: \(log.summary)")
        }
    }

    @Test(arguments: FaultRig.Kind.allCases)
    func keepAliveWithUserTimeoutDetectsAReceiveOnlyHalfOpen(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("ka", kind) { rig in
            try await rig.startServer(count: 10_000, intervalMilliseconds: 20)
            let userTimeout = Duration.seconds(2)
            let client = try rig.makeClient { Self.kernelOnly(&$0, keepAlive: true, userTimeout: userTimeout) }
            defer { client.close() }
            let log = FaultEventLog(client)
            try await bounded("10 messages: \(log.summary)", seconds: 10) { log.ids.count >= 10 }
            let droppingAt = ContinuousClock.now
            try await rig.dropServerTraffic(true)
            try await bounded("the kernel to drop the connection: \(log.summary)", seconds: 20) { log.firstEnd(after: droppingAt) != nil }
            let end = try #require(log.firstEnd(after: droppingAt))
            let detection = end.at - droppingAt
            print("Fault \(kind) keepalive 1 s/1 s + user timeout \(userTimeout), receive-only: detected after \(detection) (\(end.event.short))")
            #expect(end.event.errorEvent?.error.code == .network, "ETIMEDOUT is a network error: \(log.summary)")
            #expect(end.event.errorEvent?.willRetry == true)
            // 2 s expected; 10 s when the user timeout is not applied (keepalive alone).
            #expect(detection < .seconds(7), "the user timeout with keepalive, not keepalive alone")
        }
    }

    @Test func userTimeoutDetectsAHalfOpenWhenTheClientSends() async throws {
        try await FaultRig.run("us", .webSocket) { rig in
            try await rig.startServer(count: 10_000, intervalMilliseconds: 20)
            let userTimeout = Duration.seconds(1)
            let client = try rig.makeClient { Self.kernelOnly(&$0, keepAlive: false, userTimeout: userTimeout) }
            defer { client.close() }
            let log = FaultEventLog(client)
            try await bounded("10 messages: \(log.summary)", seconds: 10) { log.ids.count >= 10 }
            try await rig.dropServerTraffic(true)
            let sendingAt = ContinuousClock.now
            try await client.send(.text("are you there?"))
            try await bounded("the kernel to drop the connection: \(log.summary)", seconds: 20) { log.firstEnd(after: sendingAt) != nil }
            let end = try #require(log.firstEnd(after: sendingAt))
            let detection = end.at - sendingAt
            print("Fault webSocket user timeout \(userTimeout), one message sent into the void: detected \(detection) after the send (\(end.event.short))")
            #expect(end.event.errorEvent?.error.code == .network, "ETIMEDOUT is a network error: \(log.summary)")
            // About 1 s expected; without the user timeout the retransmissions go on for minutes.
            #expect(detection < .seconds(6), "the user timeout, not the kernel's retransmission limit")
        }
    }
}
#endif
