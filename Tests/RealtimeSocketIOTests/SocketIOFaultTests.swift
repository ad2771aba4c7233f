#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeSocketIO
import RealtimeTestSupport
@_spi(Transport) import RealtimeTesting
import RealtimeCore
import Testing

/// Socket.IO faults the other suites leave out, on the embedded rig of ``SocketIOClientTests``:
/// an acknowledged emit that waited in the outbox across a restart, and an open packet whose
/// heartbeat values are not usable.
@Suite("SocketIOClient: faults", .timeLimit(.minutes(2)))
struct SocketIOFaultTests {
    typealias Rig = SocketIOClientTests.Rig

    /// An `emitWithAck` made while disconnected goes out once, after the CONNECT of the next
    /// connection, and the server's answer on that connection resolves it.
    @Test func anAckedEmitFromTheOutboxIsAnsweredOnTheNextConnection() async throws {
        var (rig, events, first) = try await SocketIOClientAckTests.connectedWithOutbox()
        let socket = rig.socket
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next())?.willReconnect == true)
        await rig.waitToRetry()
        let call = Task { try await socket.emitWithAck("queued", 1) }
        await rig.loop.waitForTimers(2)  // the backoff and the ack's timeout
        rig.loop.advanceTime(by: .seconds(1))
        let second = await rig.connect(2)
        #expect(await second.waitForSent(2) == ["40", #"420["queued",1]"#])
        second.text(#"430["done"]"#)
        #expect(try await call.value.decode(String.self) == "done")
        #expect(socket.unmatchedAcks == 0)
        socket.realtime.close()
    }

    /// An `emitWithAck` whose ack timeout passes, or whose task is cancelled, while its emit
    /// still waits in the outbox has failed for its caller: the emit is taken out of the
    /// outbox and never reaches the server (sent later, a caller that retried would have
    /// it twice).
    @Test(arguments: [false, true])
    func anAckedEmitThatFailedInTheOutboxNeverGoesOut(cancel: Bool) async throws {
        var (rig, events, first) = try await SocketIOClientAckTests.connectedWithOutbox()
        let socket = rig.socket
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next())?.willReconnect == true)
        await rig.waitToRetry()
        let call = Task { try await socket.emitWithAck("stale", timeout: .milliseconds(500)) }
        await rig.loop.waitForTimers(2)  // the backoff and the ack's timeout
        if cancel {
            call.cancel()
            await #expect { try await call.value } throws: { ($0 as? RealtimeError)?.code == .cancelled }
        } else {
            rig.loop.advanceTime(by: .milliseconds(500))
            await #expect { try await call.value } throws: { SocketIOClientAckTests.code($0) == .ackTimeout }
        }
        await rig.advancePastTheBackoff(by: .seconds(1))
        let second = await rig.connect(2)
        #expect(SocketIOClientTests.connection(await events.next())?.attempt == 2)
        try await socket.emit("fresh")
        #expect(await second.waitForSent(2) == ["40", #"42["fresh"]"#], "the failed emit stayed out")
        socket.realtime.close()
    }

    /// An `emitWithAck` called from a task cancelled already fails with `cancelled` at once,
    /// and its emit never goes out, queued or not.
    @Test func anAckedEmitFromACancelledTaskNeverGoesOut() async throws {
        let (rig, _, first) = try await SocketIOClientAckTests.connectedWithOutbox()
        let socket = rig.socket
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await socket.emitWithAck("stale")
        }
        await #expect { try await call.value } throws: { ($0 as? RealtimeError)?.code == .cancelled }
        try await socket.emit("fresh")
        #expect(await first.waitForSent(2) == ["40", #"42["fresh"]"#], "the cancelled emit stayed out")
        socket.realtime.close()
    }

    /// An open packet whose `pingInterval` or `pingTimeout` is not positive would make the
    /// heartbeat deadline meaningless: the attempt fails as a protocol violation (close 1002)
    /// and the client retries with backoff.
    @Test(arguments: [(0, 20000), (25000, 0), (-1, 20000)])
    func anUnusableOpenPacketIsAViolationAndRetried(values: (Int, Int)) async throws {
        let rig = try Rig()
        let first = await rig.servers.attempt(1)
        first.handshake(pingInterval: values.0, pingTimeout: values.1)
        #expect(await first.waitForClose() == 1002)
        await rig.advancePastTheBackoff(by: .seconds(1))
        let second = await rig.servers.attempt(2)
        second.handshake()
        #expect(await second.waitForSent(1) == ["40"])
        rig.socket.realtime.close()
    }
}

/// An `onConnect` that fails ends that attempt before the outbox drains; the next connection
/// runs it again and only then sends what was queued, once.
@Suite("SocketIOClient: a failing onConnect", .timeLimit(.minutes(2)))
struct SocketIOOnConnectFaultTests {
    struct Refused: Error {}

    @Test func aFailingOnConnectIsRetriedAndTheOutboxWaitsForASuccessfulOne() async throws {
        let calls = LockedCounter()
        let rig = try SocketIOClientTests.Rig { c in
            c.client.sendPolicy = .queue()
            c.onConnect = { _ in
                if calls.next() == 1 { throw Refused() }
            }
        }
        let socket = rig.socket
        let queued = Task { try await socket.emit("chat", "queued") }
        let first = await rig.connect()
        #expect(await first.waitForClose() != nil)
        #expect(first.sentTexts == ["40"], "nothing of the outbox on the failed attempt")
        await rig.advancePastTheBackoff(by: .seconds(1))
        let second = await rig.connect(2)
        try await queued.value
        #expect(await second.waitForSent(2) == ["40", #"42["chat","queued"]"#])
        #expect(calls.count == 2)
        socket.realtime.close()
    }
}

final class LockedCounter: Sendable {
    private let value = LockedValue(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}
#endif
