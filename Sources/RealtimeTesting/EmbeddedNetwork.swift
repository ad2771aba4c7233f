#if os(Linux)
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import Realtime
import RealtimeCore
import RealtimeIO
import RealtimeSSE
import RealtimeWebSocket

/// The production SSE and WebSocket transports on a ``ManualLoop``, with the network played
/// by the test: how an app tests its own realtime code deterministically, as swift-nio's users
/// do with an embedded event loop.
///
/// Make the client with the loop as its clock and this network's transport factory; every
/// attempt the client makes then gets a server the test plays (``EmbeddedSSEServer`` for an
/// `http`/`https` URL, ``EmbeddedWebSocketServer`` for `ws`/`wss`), and every timer (the
/// client's backoff and the transports' idle, heartbeat and close timers) waits for
/// ``ManualLoop/advanceTime(by:)``:
///
/// ```swift
/// let network = EmbeddedNetwork()
/// var configuration = RealtimeClient.Configuration()
/// configuration.backoff = .exponential(initial: .seconds(1), jitter: .none)  // 1 s exactly
/// let client = try network.client(url: URL(string: "https://feed.test/stream")!, configuration: configuration)
/// let events = Task { var seen: [ClientEvent] = []; for await e in client.events { seen.append(e) }; return seen }
/// await network.waitForTransport(0)                  // the client started its first attempt
/// let server = try #require(network.sseServer(0))
/// server.respond()
/// server.event("hello", id: "1")
/// server.reset()                                      // the client retries after its backoff
/// await network.loop.waitForTimers(1)                 // once the backoff's timer is armed
/// network.loop.advanceTime(by: .seconds(1))
/// await network.waitForTransport(1)
/// #expect(network.sseServer(1)?.request.lastEventID == "1")
/// ```
///
/// Threading: one test drives the loop; the client's consumer may run in another task.
public final class EmbeddedNetwork: Sendable {
    /// The loop the transports run on, and the clock of the clients made with ``client(url:configuration:random:)``.
    public let loop: ManualLoop
    private let made = LockedValue<(sse: [EmbeddedSSEServer], webSocket: [EmbeddedWebSocketServer])>(([], []))
    private let started = StartedTransports()
    private let seed = LockedValue<UInt64>(0x5eed)

    /// A network on `loop`.
    public init(loop: ManualLoop = ManualLoop()) {
        self.loop = loop
    }

    /// Ends the network as the test ends, after its clients are closed: runs what they queued
    /// (each transport's cancellation), then drops the timers still armed and whatever is
    /// queued later (``ManualLoop/shutdown()``), so nothing the test made outlives it.
    public func shutdown() {
        loop.shutdown()
    }

    /// A client on this network: its clock is ``loop``, its transports this network's. The
    /// configuration's event loop and proxies do not apply, nor does the default network
    /// monitor (the host's interfaces are not the test's network; set a
    /// ``ManualNetworkMonitor`` to test reachability).
    public func client(
        url: URL, configuration: RealtimeClient.Configuration = RealtimeClient.Configuration(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) throws -> RealtimeClient {
        var configuration = configuration
        if configuration.usesDefaultNetworkMonitor { configuration.networkMonitor = nil }
        return try RealtimeClient(
            url: url, configuration: configuration, clock: loop, random: random,
            transportFactory: transportFactory(configuration))
    }

    /// Makes each attempt's transport: the production SSE or WebSocket transport (with the
    /// configuration's transport options) on ``loop``, its network a server of this network.
    @_spi(Transport)
    public func transportFactory(_ configuration: RealtimeClient.Configuration) -> RealtimeClient.TransportFactory {
        var sseOptions = configuration.sse
        sseOptions.proxy = .none
        var webSocketOptions = configuration.webSocket
        webSocketOptions.proxy = .none
        let sse = sseOptions
        let webSocket = webSocketOptions
        return { [self] request in
            let base = RealtimeClient.transportKind(for: request.url) == .sse
                ? sseTransport(request, sse) : webSocketTransport(request, webSocket)
            return EmbeddedTransport(base) { [started] in started.started() }
        }
    }

    private func sseTransport(_ request: TransportRequest, _ options: SSEOptions) -> any Transport {
        SSETransportCore(request: request, options: options, loop: loop) { [self] _, _, _ in
            let curl = ScriptedCurl()
            made.withLock { $0.sse.append(EmbeddedSSEServer(request: request, curl: curl, loop: loop)) }
            return curl
        }
    }

    private func webSocketTransport(_ request: TransportRequest, _ options: WebSocketOptions) -> any Transport {
        let random = seed.withLock { s in
            s &+= 1
            return SplitMix64(seed: s)
        }
        return WebSocketTransportCore(request: request, options: options, loop: loop, random: random) { [self] chunk in
            let stream = EmbeddedByteStream(loop: loop, readChunkSize: chunk)
            made.withLock { $0.webSocket.append(EmbeddedWebSocketServer(request: request, stream: stream, loop: loop)) }
            return stream
        }
    }

    /// Runs the loop (what it holds may be what the client waits for: the end of the previous
    /// connection, which a new attempt waits for), waits until the client started its
    /// `index`-th transport (0 for the first; the client may start it from its consumer's
    /// task), then runs the loop again, which makes its connection: after this,
    /// ``sseServer(_:)`` or ``webSocketServer(_:)`` has its server. Returns early when the
    /// waiting task is cancelled (then the server may be missing).
    public func waitForTransport(_ index: Int) async {
        loop.run()
        await started.wait(for: index)
        loop.run()
    }

    /// Waits until `client` reports a state that `condition` accepts (its current one
    /// included), running the loop whenever work is queued on it meanwhile: the step that
    /// leads there may wait for the loop (a connection's end before the backoff starts). Runs
    /// the loop once more before it returns; nil when the client's states ended first.
    ///
    /// ```swift
    /// server.reset()
    /// let state = await network.waitForState(of: client) {
    ///     if case .waitingToRetry = $0 { true } else { false }
    /// }
    /// await network.loop.waitForTimers(1)  // the client arms the timer just after the state
    /// if case .waitingToRetry(let delay)? = state { network.loop.advanceTime(by: delay) }
    /// ```
    @discardableResult
    public func waitForState(
        of client: RealtimeClient, where condition: @escaping @Sendable (RealtimeClient.State) -> Bool
    ) async -> RealtimeClient.State? {
        let reached: [RealtimeClient.State] = await runningLoop {
            for await state in client.stateChanges where condition(state) { return [state] }
            return []
        }
        loop.run()
        return reached.first
    }

    /// Awaits `body` while running the loop whenever work is queued on it: for a step taken
    /// in another task that ends with work on the loop. `afterEachRun` follows every run (a
    /// test's servers offering what they held behind a pause, say).
    package func runningLoop<T: Sendable>(
        afterEachRun: @escaping @Sendable () -> Void = {}, _ body: @escaping @Sendable () async -> T
    ) async -> T {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask { [loop] in
                while !Task.isCancelled {
                    await loop.waitForWork()
                    if !Task.isCancelled { loop.run() }
                    afterEachRun()
                }
                return nil
            }
            var result: T?
            for await value in group where value != nil {
                result = value
                group.cancelAll()
            }
            return result!
        }
    }

    /// The server of the `index`-th SSE connection (0 for the first), once the transport made
    /// it (the loop is run first); nil before.
    public func sseServer(_ index: Int) -> EmbeddedSSEServer? {
        loop.run()
        return made.withLock { index < $0.sse.count ? $0.sse[index] : nil }
    }

    /// The server of the `index`-th WebSocket connection (0 for the first), once the transport
    /// made it (the loop is run first); nil before.
    public func webSocketServer(_ index: Int) -> EmbeddedWebSocketServer? {
        loop.run()
        return made.withLock { index < $0.webSocket.count ? $0.webSocket[index] : nil }
    }

    /// The connections the transports made so far.
    public var connectionCount: Int { made.withLock { $0.sse.count + $0.webSocket.count } }
}
#endif
