import Foundation
import Realtime
import RealtimeTestSupport
import Synchronization
import Testing
@_spi(Transport) import RealtimeCore

/// A scripted WebSocket transport playing an Engine.IO server: the test delivers what the
/// server sends (``text(_:)``, ``binary(_:)``, ``end(_:)``) and reads what the client sent
/// (``nextSent()``). One instance per attempt; ``Factory`` hands them out in order.
final class ScriptedEngineIOServer: Transport, Sendable {
    struct State {
        var sink: (any TransportSink)?
        var early: [TransportEvent] = []
        var sent: [OutboundMessage] = []
        var ended = false
        var closeCode: UInt16?
        var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?
    }

    let kind = TransportKind.webSocket
    let request: TransportRequest
    private let state = LockedValue(State())

    init(request: TransportRequest) {
        self.request = request
    }

    /// What the client sent so far, as text (binary messages as `<n bytes>`).
    var sentTexts: [String] {
        state.withLock { $0.sent }.map {
            switch $0 {
            case .text(let t): t
            case .binary(let b): "<\(b.count) bytes>"
            case .ping: "<ping>"
            }
        }
    }

    /// The close code the client (or the Engine.IO layer) closed with, if it closed.
    var closeCode: UInt16? { state.withLock { $0.closeCode } }

    /// Waits until the client sent at least `count` messages; returns them as text.
    @discardableResult
    func waitForSent(_ count: Int) async -> [String] {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s in
                if s.sent.count >= count { return true }
                s.waiter = (count, c)
                return false
            }
            if ready { c.resume() }
        }
        return sentTexts
    }

    func start(delivering sink: any TransportSink) {
        var early = state.withLock { s in
            s.sink = sink
            defer { s.early = [] }
            return s.early
        }
        if !early.isEmpty { _ = sink.deliver(&early) }
    }

    private func emit(_ event: TransportEvent) {
        let sink: (any TransportSink)? = state.withLock { s in
            guard !s.ended else { return nil }
            if s.sink == nil { s.early.append(event) }
            let sink = s.sink
            if case .ended = event {
                // The end is the last event: the sink (the client, which holds this server
                // through its factory) is let go, as a real transport does.
                s.ended = true
                s.sink = nil
            }
            return sink
        }
        var events = [event]
        _ = sink?.deliver(&events)
    }

    func open() { emit(.opened(ConnectionInfo(transport: .webSocket, url: request.url, status: 101))) }
    func text(_ t: String) { emit(.message(Message(content: .text(t)))) }
    func binary(_ b: [UInt8]) { emit(.message(Message(content: .binary(b)))) }
    func end(_ error: RealtimeError? = RealtimeError(.network, detail: "reset")) {
        emit(.ended(TransportEnd(clean: error == nil, code: error == nil ? 1000 : nil, error: error)))
    }

    /// Opens and sends the Engine.IO open packet.
    func handshake(pingInterval: Int = 25000, pingTimeout: Int = 20000, maxPayload: Int = 1_000_000) {
        open()
        text(#"0{"sid":"eio1","upgrades":[],"pingInterval":\#(pingInterval),"pingTimeout":\#(pingTimeout),"maxPayload":\#(maxPayload)}"#)
    }

    func resumeDelivery() {}

    func send(_ message: OutboundMessage) async throws {
        let resume: CheckedContinuation<Void, Never>? = try state.withLock { s in
            guard !s.ended else { throw RealtimeError(.notConnected) }
            s.sent.append(message)
            guard let w = s.waiter, s.sent.count >= w.count else { return nil }
            s.waiter = nil
            return w.continuation
        }
        resume?.resume()
    }

    func close(code: UInt16, reason: String) {
        state.withLock { s in if s.closeCode == nil { s.closeCode = code } }
        emit(.ended(TransportEnd(clean: false, error: .cancelled)))
    }

    func verifyConnection(within timeout: Duration) {}

    /// Hands out one scripted server per attempt, and waits for the next.
    final class Factory: Sendable {
        private let state = LockedValue<(made: [ScriptedEngineIOServer], waiter: (Int, CheckedContinuation<ScriptedEngineIOServer, Never>)?)>(([], nil))

        func make(_ request: TransportRequest) throws -> any Transport {
            let server = ScriptedEngineIOServer(request: request)
            let resume = state.withLock { s -> CheckedContinuation<ScriptedEngineIOServer, Never>? in
                s.made.append(server)
                guard let (n, c) = s.waiter, s.made.count > n else { return nil }
                s.waiter = nil
                return c
            }
            resume?.resume(returning: server)
            return server
        }

        /// The transport of attempt `number` (1-based), once the client made it.
        func attempt(_ number: Int) async -> ScriptedEngineIOServer {
            await withCheckedContinuation { c in
                let ready = state.withLock { s -> ScriptedEngineIOServer? in
                    if s.made.count >= number { return s.made[number - 1] }
                    s.waiter = (number - 1, c)
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        }

        var count: Int { state.withLock { $0.made.count } }
    }
}
