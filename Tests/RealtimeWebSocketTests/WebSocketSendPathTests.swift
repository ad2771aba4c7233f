import Foundation
import Testing
import RealtimeCore
import RealtimeTestSupport
import RealtimeTestServer
@testable import RealtimeWebSocket

/// `send` returns once the message is accepted into the bounded outbound queue; `flush`
/// waits for the write; `close()` writes what was accepted before its close frame; the
/// queue's bounds hold while the peer does not read.
@Suite(.timeLimit(.minutes(1))) struct WebSocketSendPathTests {
    /// Before the handshake completes nothing can be written, yet accepted sends return;
    /// a flush send does not.
    @Test func sendReturnsOnAcceptanceFlushWaitsForTheWrite() async throws {
        let server = try ScriptedServerNoHandshake()
        try await withDeadline {
            let probe = TransportProbe(URL(string: "ws://127.0.0.1:\(server.port)/")!) { $0.connectTimeout = .seconds(30) }
            let transport = probe.transport
            for i in 0..<10 { try await transport.send(.text("\(i)")) }
            #expect(transport.sends.withLock { $0.inFlight } == 10, "accepted, not written")
            let flushed = Task { try await transport.send(.text("last"), flush: true) }
            for _ in 0..<100 { await Task.yield() }
            transport.close()
            do {
                try await flushed.value
                Issue.record("a flush send cannot succeed without a connection")
            } catch let error as RealtimeError {
                #expect(error.code == .notConnected)
            }
            _ = await probe.ended()
        }
    }

    /// `close()` right after a burst of accepted sends: every message reaches the server
    /// before the close frame.
    @Test func closeWritesWhatWasAcceptedFirst() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        try await withDeadline(30) {
            let probe = TransportProbe(server.wsURL("/ws"))
            #expect(await probe.opened() != nil)
            for i in 0..<300 { try await probe.transport.send(.text("\(i)")) }
            probe.transport.close(code: 4001, reason: "")
            let (end, _) = await probe.ended()
            #expect(end?.clean == true && end?.error?.code == .cancelled)
            let session = try #require(server.webSocketSessions.first)
            #expect(session.receivedClose && session.closeCode == 4001)
            #expect(session.messageCount == 300)
            #expect(session.textMessages == (0..<300).map { "\($0)" }, "in order, all before the close frame")
        }
    }

    /// A peer that never reads: senders are held back once the queue reaches its byte
    /// bound, so what the client holds stays within the bound plus one message.
    @Test func theByteBoundHoldsWhileThePeerDoesNotRead() async throws {
        let server = try ScriptedServer { fd in ScriptedServer.ignoreWithoutReading(fd, seconds: 10) }
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.maxOutboundBytes = 256 << 10
            let probe = TransportProbe(server.url, options: options) { $0.idleTimeout = nil }
            #expect(await probe.opened() != nil)
            let transport = probe.transport
            let chunk = [UInt8](repeating: 1, count: 32 << 10)
            let sent = LockedValue(0)
            let sender = Task {
                for _ in 0..<2000 {
                    try await transport.send(.binary(chunk))
                    sent.withLock { $0 += 1 }
                }
            }
            // Wait (bounded) until the sender is held back: the kernel's buffers are full and
            // the queue is at its bound.
            var last = -1
            for _ in 0..<200 {
                try await Task.sleep(for: .milliseconds(20))
                let now = sent.withLock { $0 }
                if now == last { break }
                last = now
            }
            #expect(sent.withLock { $0 } < 2000, "the sender is held back")
            #expect(transport.sends.withLock { $0.inFlightBytes } <= (256 << 10) + chunk.count)
            transport.abort()
            _ = try? await sender.value
            _ = await probe.ended()
        }
    }
}

extension ScriptedServer {
    /// Keeps the connection open without reading a byte for `seconds`, then closes it.
    static func ignoreWithoutReading(_ fd: Int32, seconds: Double) {
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline { usleep(50_000) }
        close(fd)
    }
}
