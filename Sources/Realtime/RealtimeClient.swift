#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import RealtimeCore

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
/// any preparation task; no event is delivered afterwards. (In top-level code Swift keeps a
/// loop's iterator until the program ends, so leaving the loop there does not stop the
/// client: call ``close()``.) ``state`` and ``stateChanges``
/// say what the client is doing.
///
/// **How it is built.** Every decision is made by `ClientStateMachine` (in `RealtimeCore`,
/// sans-I/O, time passed in); this class is its driver: it feeds it events (transport
/// events, timers, the consumer's progress, network changes, calls of this API) under one
/// lock and performs its actions after releasing it.
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
    @_spi(Transport)
    public typealias TransportFactory = @Sendable (TransportRequest) throws -> any Transport

    /// The URL given at creation (the first attempt's; redirects do not change it).
    public let url: URL
    /// The configuration the client was made with.
    public let configuration: Configuration
    /// The transport the URL's scheme selects.
    public let transportKind: TransportKind

    let storage: ClientStorage
    let clock: ClientClock
    let makeTransport: TransportFactory

    /// A client for `url` with the default transports, the continuous clock and the system
    /// random generator.
    ///
    /// - Throws: ``RealtimeError`` `unsupportedScheme` when the scheme is not `http`,
    ///   `https`, `ws` or `wss` (checked here, before any I/O), or `invalidConfiguration`
    ///   for an unusable configuration (a buffer capacity below 1, a `backoff.initial` below
    ///   ``BackoffPolicy/minimumDelay``, and the others the Configuration article lists).
    public convenience init(url: URL, configuration: Configuration = Configuration()) throws {
        try self.init(
            url: url, configuration: configuration, clock: ContinuousClock(),
            random: SystemRandomNumberGenerator(),
            transportFactory: RealtimeClient.defaultTransportFactory(configuration: configuration))
    }

    /// A client with an injected clock (backoff timers, stable-period measurement), random
    /// generator (jitter) and transport factory: how the tests drive the client
    /// deterministically with a manual clock, a seeded generator and scripted transports.
    @_spi(Transport)
    public init<C: Clock, G: RandomNumberGenerator & Sendable>(
        url: URL, configuration: Configuration, clock: C, random: G,
        transportFactory: @escaping TransportFactory
    ) throws where C.Duration == Duration {
        guard let kind = Self.transportKind(for: url) else {
            throw RealtimeError(.unsupportedScheme, detail: "scheme '\(url.scheme ?? "")' is not http, https, ws or wss")
        }
        try configuration.validate()
        self.url = url
        self.configuration = configuration
        self.transportKind = kind
        self.clock = ClientClock(clock)
        self.makeTransport = transportFactory
        let machine = ClientStateMachine(
            configuration: configuration.machineConfiguration(kind: kind, monitorsNetwork: Self.needsNetwork(url)),
            random: random)
        self.storage = ClientStorage(
            machine: machine, capacity: configuration.eventBufferCapacity, terminator: configuration.terminator,
            duplicates: configuration.duplicates.map { DuplicateTracker(filter: $0, idsCarryOver: kind == .sse) })
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
    ///
    /// **Resuming exactly.** An event counts as processed when the loop asks for the next
    /// one (or after ``acknowledge()``); the cursor (``lastEventID``, saved to
    /// ``Configuration/cursorStore``) covers processed events only. Leaving the loop with
    /// `break`, `return` or a thrown error does *not* count the current event as processed:
    /// acknowledge it first if you processed it, or it comes again after a restart.
    ///
    /// ```swift
    /// var configuration = RealtimeClient.Configuration()
    /// configuration.cursorStore = CursorStore(load: { loadCursor() }, save: { saveCursor($0) })
    /// let client = try RealtimeClient(url: feedURL, configuration: configuration)
    /// for await event in client.events {
    ///     guard case .event(let message) = event else { continue }
    ///     try? database.insert(message)
    ///     if message.type == "end" {
    ///         await client.acknowledge()  // without it, `break` leaves this event unprocessed
    ///         break
    ///     }
    /// }
    /// ```
    ///
    /// `consume { event in … }` has no such pitfall: an event is
    /// processed exactly when its closure returns normally. For throughput, ``batches``
    /// hands over what arrived together at once, without a `String` per event; a client has
    /// one consumer: the first iterator of `events` or `batches` gets the stream, a later one
    /// of either ends at once.
    public var events: Events { Events(client: self) }

    /// The committed resume cursor: the id of the last event the consumer processed (or the
    /// configured/loaded starting cursor). Sent as `Last-Event-ID` on reconnect.
    public var lastEventID: String? { storage.consumer.withLock { $0.ledger.cursor } }

    /// Marks every event handed to the consumer so far as processed, without waiting for the
    /// consumer to ask for the next one (e.g. after a slow handler has stored its result).
    public func acknowledge() async {
        await commitProcessed(always: true)
    }

    /// Pauses the client (an app going to the background): closes the live connection
    /// cleanly and cancels any backoff timer, without ending ``events``. The consumer sees
    /// `.closed` with `willReconnect == true` when a connection was open. Nothing connects
    /// until ``resume()``. No-op when the client is done or already suspended.
    public func suspend() {
        handle { machine, now in machine.suspend(now: now) }
    }

    /// Ends a ``suspend()``: connects again at once, with the resume cursor and a fresh
    /// backoff. No-op when not suspended.
    public func resume() {
        handle { machine, now in machine.resume(now: now) }
    }

    /// Counters: attempts, connections, messages, errors by class.
    public var statistics: Statistics {
        var s = storage.state.withLock { $0.machine.currentStatistics }
        s.duplicatesDropped = storage.consumer.withLock { $0.ledger.duplicatesDropped }
        return s
    }

    /// Whether ``suspend()`` is in effect.
    public var isSuspended: Bool { storage.state.withLock { $0.machine.suspended } }

    /// Stops at once: closes the live connection, cancels the backoff timer and any
    /// preparation task, drops buffered events and ends ``events``. Idempotent; callable
    /// from any task. A WebSocket connection finishes its closing handshake in the
    /// background: the close frame (1000) goes out, and the TCP connection stays until the
    /// server answers or its `closeTimeout` (``Configuration/webSocket``) passes.
    public func close() {
        handle { machine, _ in machine.close() }
    }
}
