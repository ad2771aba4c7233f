#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A self-healing realtime connection: SSE for `http`/`https` URLs, WebSocket for `ws`/`wss`,
/// one typed stream of ``ClientEvent``s for both.
///
/// ```swift
/// let client = try RealtimeClient(url: URL(string: "https://example.com/stream")!)
/// for await event in client.events {
///     switch event {
///     case .open(let info): print("open, attempt \(info.attempt)")
///     case .event(let message): print(message.text ?? "")
///     case .error(let e): print("error \(e.error), retry: \(e.willRetry)")
///     case .closed(let c): print("closed, reconnect: \(c.willReconnect)")
///     }
/// }
/// ```
///
/// **Lifecycle.** Nothing touches the network until ``events`` is iterated. The client then
/// makes one connection attempt at a time (single-flight) and, when one ends, applies the
/// ``ReconnectPolicy`` and ``BackoffPolicy`` of its ``Configuration``. The stream finishes
/// when the policy stops (after a final `.error` and/or `.closed` with `willRetry`/
/// `willReconnect` false). ``close()``, cancelling the consuming task, or leaving the
/// `for await` loop stops everything at once: the live connection, any backoff timer and
/// the reconnect task; no event is delivered afterwards.
///
/// **Exact resume.** The cursor sent as `Last-Event-ID` is the id of the last event
/// the consumer has *processed*: an event counts as processed when the consumer asks for the
/// next one, or earlier through ``acknowledge()``. Before reconnecting, the client waits
/// until the consumer has processed what was already received, so nothing is received
/// twice and nothing is skipped. Partial events are never delivered (transport contract).
/// WebSocket has no ids of its own: ``Configuration/messageID`` reads one from each message
/// and ``Configuration/resumeURL`` tells the server where to resume, with the same rules.
///
/// **Back-pressure.** Events wait in a bounded buffer (``Configuration/eventBufferCapacity``);
/// when it is full the client stops reading from the transport, whose own bounded buffer
/// then fills and pauses the socket.
public final class RealtimeClient: Sendable {
    /// Makes the transport for one attempt. The default picks `SSETransport` or
    /// `WebSocketTransport` by ``TransportRequest/url``'s scheme; tests inject mocks.
    public typealias TransportFactory = @Sendable (TransportRequest) throws -> any Transport

    /// The URL given at creation (the first attempt's; redirects do not change it).
    public let url: URL
    public let configuration: Configuration
    /// The transport the URL's scheme selects.
    public let transportKind: TransportKind

    struct Envelope: Sendable {
        var event: ClientEvent
        var seq: UInt64
    }

    enum Phase {
        case idle, running, finished, closed
    }

    struct State {
        var phase: Phase = .idle
        var iterated = false
        var loopTask: Task<Void, Never>?
        var random: (any RandomNumberGenerator & Sendable)?
        var transport: (any Transport)?
        /// Set by ``RealtimeClient/suspend()``: no attempt until ``RealtimeClient/resume()``.
        var suspended = false
        /// Set by ``RealtimeClient/resume()``: the next attempt starts a fresh backoff.
        var resetBackoff = false
        var statistics = Statistics()
        /// The configured ``NetworkMonitor`` last said there is no usable path.
        var networkDown = false
        /// The monitor's last `pathGeneration` (to tell a path change from a repeat).
        var pathGeneration: UInt64 = 0
        /// The live attempt was closed because the network went away (not a user close).
        var closedForNetwork = false
    }

    /// The consumer's bookkeeping, under its own lock: the consumer takes it for every
    /// event, and nothing on the producer side does (a contended `Mutex` on Linux is a
    /// futex system call). Lock order: `state`, then `delivery`.
    struct Delivery {
        /// The committed resume cursor.
        var cursor: String?
        /// Sequence number and SSE id of the last envelope handed to the consumer.
        var deliveredSeq: UInt64 = 0
        var deliveredID: String?
        /// Sequence number of the last envelope the consumer has processed.
        var processedSeq: UInt64 = 0
        var caughtUpWaiter: CheckedContinuation<Void, Never>?
    }

    let channel: BoundedChannel<Envelope>
    let state: LockedValue<State>
    let delivery: LockedValue<Delivery>
    /// Sequence number of the last envelope sent into ``channel`` (by the relay or the loop;
    /// never both at once: the loop forwards only between attempts).
    let forwardedSeq = Atomic<UInt64>(0)
    let demand = DemandGate()
    let wakeup = Wakeup()
    let clock: ClientClock
    let makeTransport: TransportFactory

    /// A client for `url` with the default transports, the continuous clock and the system
    /// random generator.
    ///
    /// - Throws: ``RealtimeError`` `unsupportedScheme` when the scheme is not `http`,
    ///   `https`, `ws` or `wss` (checked here, before any I/O), or `invalidConfiguration`
    ///   for an unusable configuration (e.g. a buffer capacity below 1).
    public convenience init(url: URL, configuration: Configuration = Configuration()) throws {
        try self.init(
            url: url, configuration: configuration, clock: ContinuousClock(),
            random: SystemRandomNumberGenerator(),
            transportFactory: RealtimeClient.defaultTransportFactory(configuration: configuration))
    }

    /// A client with an injected clock (backoff timers, stable-period measurement), random
    /// generator (jitter) and transport factory: how the tests drive the reconnect loop
    /// deterministically with a manual clock, a seeded generator and scripted transports.
    public init<C: Clock, G: RandomNumberGenerator & Sendable>(
        url: URL, configuration: Configuration, clock: C, random: G,
        transportFactory: @escaping TransportFactory
    ) throws where C.Duration == Duration {
        guard let kind = Self.transportKind(for: url) else {
            throw RealtimeError(.unsupportedScheme, detail: "scheme '\(url.scheme ?? "")' is not http, https, ws or wss")
        }
        guard configuration.eventBufferCapacity >= 1 else {
            throw RealtimeError(.invalidConfiguration, detail: "eventBufferCapacity must be at least 1")
        }
        self.url = url
        self.configuration = configuration
        self.transportKind = kind
        self.clock = ClientClock(clock)
        self.makeTransport = transportFactory
        self.channel = BoundedChannel(capacity: configuration.eventBufferCapacity)
        var initial = State()
        initial.random = random
        self.delivery = LockedValue(Delivery(cursor: configuration.lastEventID))
        self.state = LockedValue(initial)
        let demand = self.demand
        channel.setDemandHandler { [weak self] in
            demand.signal()
            // A transport paused by the relay (the consumer's buffer was full) reads again.
            self?.state.withLock { $0.transport }?.events.relayDemand()
        }
        channel.setTerminationHandler { [weak self] in self?.close() }
    }

    /// The transport a URL selects: `http`/`https` → SSE, `ws`/`wss` → WebSocket, else nil.
    public static func transportKind(for url: URL) -> TransportKind? {
        switch url.scheme?.lowercased() {
        case "http", "https": return .sse
        case "ws", "wss": return .webSocket
        default: return nil
        }
    }

    /// The events of this client; iterate once (see ``RealtimeClient``).
    public var events: Events { Events(client: self) }

    /// The committed SSE resume cursor: the id of the last event the consumer processed
    /// (or the configured/loaded starting cursor). Sent as `Last-Event-ID` on reconnect.
    public var lastEventID: String? { delivery.withLock { $0.cursor } }

    /// Marks every event handed to the consumer so far as processed, without waiting for the
    /// consumer to ask for the next one (e.g. after a slow handler has stored its result).
    public func acknowledge() async {
        await commitDelivered()
    }

    /// Sends a message on the live connection (WebSocket): returns once the message is
    /// accepted into the connection's bounded outbound queue (it waits only while the queue
    /// is full). See the ``Transport`` contract.
    /// - Throws: ``RealtimeError`` `notConnected` between connections or after ``close()``,
    ///   `sendNotSupported` on SSE.
    public func send(_ message: OutboundMessage) async throws {
        try await send(message, flush: false)
    }

    /// ``send(_:)``; with `flush: true` it returns only once the frame is written to the
    /// socket, and throws if it could not be.
    public func send(_ message: OutboundMessage, flush: Bool) async throws {
        guard let transport = state.withLock({ $0.phase == .running ? $0.transport : nil }) else {
            throw RealtimeError(.notConnected)
        }
        try await transport.send(message, flush: flush)
    }

    /// Pauses the client (an app going to the background): closes the live connection
    /// cleanly and cancels any backoff timer, without ending ``events``. The consumer sees
    /// `.closed` with `willReconnect == true` when a connection was open. Nothing connects
    /// until ``resume()``. No-op when not running or already suspended.
    public func suspend() {
        let transport: (any Transport)?? = state.withLock { s in
            guard s.phase == .running || s.phase == .idle, !s.suspended else { return nil }
            s.suspended = true
            return .some(s.transport)
        }
        guard let transport else { return }
        log(.info, "suspended")
        transport?.close()
        wakeup.wake()
    }

    /// Ends a ``suspend()``: connects again at once, with the resume cursor and a fresh
    /// backoff. No-op when not suspended.
    public func resume() {
        let resumed: Bool = state.withLock { s in
            guard s.suspended else { return false }
            s.suspended = false
            s.resetBackoff = true
            return true
        }
        if resumed {
            log(.info, "resumed")
            wakeup.wake()
        }
    }

    /// Counters: attempts, connections, messages, errors by class.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Whether ``suspend()`` is in effect.
    public var isSuspended: Bool { state.withLock { $0.suspended } }

    /// Stops at once: closes the live connection, cancels the backoff timer and the
    /// reconnect task, drops buffered events and ends ``events``. Idempotent; callable
    /// from any task.
    public func close() {
        let (task, transport, waiter): (Task<Void, Never>?, (any Transport)?, CheckedContinuation<Void, Never>?) =
            state.withLock { s in
                if s.phase == .closed { return (nil, nil, nil) }
                s.phase = .closed
                defer {
                    s.loopTask = nil
                    s.transport = nil
                }
                let waiter = delivery.withLock { d in
                    defer { d.caughtUpWaiter = nil }
                    return d.caughtUpWaiter
                }
                return (s.loopTask, s.transport, waiter)
            }
        if task != nil || transport != nil { log(.info, "closed by the application") }
        task?.cancel()
        transport?.close()
        waiter?.resume()
        channel.terminate()
    }

    // MARK: Consumer side

    /// Starts the reconnect loop on the first iteration; returns whether this is the first.
    func startIfFirstIteration() -> Bool {
        enum Start { case notFirst, first, firstWithLoop(any RandomNumberGenerator & Sendable) }
        let start: Start = state.withLock { s in
            guard !s.iterated else { return .notFirst }
            s.iterated = true
            // Closed before anyone iterated: the first iterator ends at once.
            guard s.phase == .idle, let random = s.random else { return .first }
            s.phase = .running
            s.random = nil
            return .firstWithLoop(random)
        }
        switch start {
        case .notFirst:
            return false
        case .first:
            return true
        case .firstWithLoop(let random):
            let task = Task { [self] in
                var rng = random
                await self.run(random: &rng)
            }
            let cancelNow: Bool = state.withLock { s in
                if s.phase == .closed { return true }
                s.loopTask = task
                return false
            }
            if cancelNow { task.cancel() }
            return true
        }
    }

    @usableFromInline
    func consumerNext() async -> ClientEvent? {
        if let (event, saved) = consumerPoll() {
            if let saved { await save(saved) }
            return event
        }
        await commitDelivered()
        guard let envelope = await channel.next() else { return nil }
        delivery.withLock { d in deliver(envelope, &d) }
        return Self.materialized(envelope.event)
    }

    /// The consumer's fast path, with no suspension point: the next event when one is
    /// buffered (committing the previous one and recording this one under one lock), plus
    /// a changed cursor the caller must save. nil when the consumer would have to wait.
    @usableFromInline
    func consumerPoll() -> (ClientEvent, saved: String?)? {
        guard let envelope = channel.poll() else { return nil }
        let (saved, waiter) = delivery.withLock { d in
            let committed = commit(&d)
            deliver(envelope, &d)
            return committed
        }
        waiter?.resume()
        return (Self.materialized(envelope.event), configuration.cursorStore == nil ? nil : saved)
    }

    @usableFromInline
    func save(_ cursor: String) async {
        if let store = configuration.cursorStore { await store.save(cursor) }
    }

    /// An SSE event's text is built here, on the consumer's thread, from the bytes the I/O
    /// thread copied (see `SSEDataArena`): the allocation and its release stay on one thread.
    private static func materialized(_ event: ClientEvent) -> ClientEvent {
        guard case .event(var message) = event else { return event }
        message.materialize()
        return .event(message)
    }

    private func deliver(_ envelope: Envelope, _ d: inout Delivery) {
        d.deliveredSeq = envelope.seq
        if case .event(let m) = envelope.event, let id = m.id { d.deliveredID = id }
    }

    /// Commits what the consumer was handed; saves a changed cursor; wakes a reconnect that
    /// waits for the consumer to catch up.
    private func commitDelivered() async {
        let (saved, waiter) = delivery.withLock { d in commit(&d) }
        waiter?.resume()
        if let saved { await save(saved) }
    }

    /// Marks what was delivered as processed: returns the cursor to save (when it changed)
    /// and the reconnect loop's catch-up waiter to wake (when the consumer caught up).
    private func commit(_ d: inout Delivery) -> (String?, CheckedContinuation<Void, Never>?) {
        var saved: String?
        if let id = d.deliveredID {
            d.deliveredID = nil
            if id != d.cursor {
                d.cursor = id
                saved = id
            }
        }
        d.processedSeq = d.deliveredSeq
        var waiter: CheckedContinuation<Void, Never>?
        if d.caughtUpWaiter != nil, d.processedSeq == forwardedSeq.load(ordering: .acquiring) {
            waiter = d.caughtUpWaiter
            d.caughtUpWaiter = nil
        }
        return (saved, waiter)
    }
}
