#if os(Linux)
import Foundation
import Realtime
import RealtimeCore
import RealtimeIO
import RealtimeIOTestSupport
import RealtimeSSE
import RealtimeSSETestSupport
import RealtimeTestSupport
import RealtimeWebSocket
import Testing

/// A `RealtimeClient` on the embedded stack: the production transport cores on a
/// ``ManualLoop``, which is also the client's clock (its backoff, outbox and on-open hook
/// timers are loop timers), and each attempt's network played by the test through an
/// ``EmbeddedSSEServer`` (a scripted libcurl) or an ``EmbeddedWebSocketServer`` (an embedded
/// byte stream). Time moves only with ``advance(by:)``; nothing sleeps, nothing reads a clock.
///
/// The consumer runs in a task of its own (an ``EventRecorder``): what the client emits while
/// the test runs the loop reaches it asynchronously, and the test awaits it there. Steps the
/// client takes on the consumer's progress (exact resume waits for it) are awaited through
/// ``waitForState(_:_:)`` before the loop runs again.
final class EmbeddedClient: @unchecked Sendable {
    let loop = ManualLoop()
    let client: RealtimeClient
    private let made = LockedValue<(sse: [EmbeddedSSEServer], webSocket: [EmbeddedWebSocketServer])>(([], []))

    /// A client for `url` with jitter off (delays are exact: 1 s, 2 s, 4 s…), no network
    /// monitor, no heartbeat, no compression and no proxy unless `configure` says otherwise.
    init(_ url: String = "http://peer.test/stream", seed: UInt64 = 1, configure: (inout RealtimeClient.Configuration) -> Void = { _ in }) throws {
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(jitter: .none)
        configuration.networkMonitor = nil
        configuration.heartbeat = .disabled
        configuration.webSocket.compression = .disabled
        configuration.webSocket.proxy = .none
        configuration.sse.proxy = .none
        configure(&configuration)
        let loop = self.loop
        let made = self.made
        let sse = configuration.sse
        let webSocket = configuration.webSocket
        client = try RealtimeClient(
            url: URL(string: url)!, configuration: configuration, clock: loop, random: SeededGenerator(seed: seed),
            transportFactory: { request in
                Self.transport(request, sse: sse, webSocket: webSocket, loop: loop, seed: seed, made: made)
            })
    }

    private static func transport(
        _ request: TransportRequest, sse: SSETransport.Options, webSocket: WebSocketTransport.Options, loop: ManualLoop,
        seed: UInt64, made: LockedValue<(sse: [EmbeddedSSEServer], webSocket: [EmbeddedWebSocketServer])>
    ) -> any Transport {
        if RealtimeClient.transportKind(for: request.url) == .sse {
            return SSETransportCore(request: request, options: sse, loop: loop) { _, _, _ in
                let curl = ScriptedCurl()
                made.withLock { $0.sse.append(EmbeddedSSEServer(request: request, curl: curl, loop: loop)) }
                return curl
            }
        }
        let random = SeededGenerator(seed: seed &+ UInt64(request.attempt))
        return WebSocketTransportCore(request: request, options: webSocket, loop: loop, random: random) { chunk in
            let stream = EmbeddedByteStream(loop: loop, readChunkSize: chunk)
            made.withLock { $0.webSocket.append(EmbeddedWebSocketServer(request: request, stream: stream, loop: loop)) }
            return stream
        }
    }

    /// Runs what the client and its transports queued.
    func run() { loop.run() }

    /// Moves the loop's time (the client's and the transports'), firing what falls due.
    func advance(by duration: Duration) { loop.advanceTime(by: duration) }

    /// The server of SSE attempt `index` (0 for the first), once the transport made it.
    func sse(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) -> EmbeddedSSEServer? {
        loop.run()
        let servers = made.withLock { $0.sse }
        guard index < servers.count else {
            Issue.record("no SSE attempt \(index + 1) (\(servers.count) made)", sourceLocation: sourceLocation)
            return nil
        }
        return servers[index]
    }

    /// The server of WebSocket attempt `index` (0 for the first), once the transport made it.
    func webSocket(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) -> EmbeddedWebSocketServer? {
        loop.run()
        let servers = made.withLock { $0.webSocket }
        guard index < servers.count else {
            Issue.record("no WebSocket attempt \(index + 1) (\(servers.count) made)", sourceLocation: sourceLocation)
            return nil
        }
        return servers[index]
    }

    /// Attempts whose transport made its connection so far.
    var connectionCount: Int { made.withLock { $0.sse.count + $0.webSocket.count } }

    /// Waits until the client reports a state satisfying `condition`, then runs the loop (what
    /// the client queued on the way, say a transport it started, is done when this returns).
    @discardableResult
    func waitForState(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: (RealtimeClient.State) -> Bool
    ) async -> RealtimeClient.State? {
        for await state in client.stateChanges where condition(state) {
            loop.run()
            return state
        }
        Issue.record("the client ended without \(what) (now \(client.state))", sourceLocation: sourceLocation)
        return nil
    }
}
#endif
