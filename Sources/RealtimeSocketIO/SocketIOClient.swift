#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import Realtime

/// A Socket.IO v4 client (Engine.IO protocol v4, Socket.IO protocol v5) over the WebSocket
/// transport, on a self-healing ``RealtimeClient``.
///
/// ```swift
/// let socket = try SocketIOClient(url: URL(string: "ws://localhost:3000")!)
/// try await socket.emit("hello", "world")
/// for await event in socket.events {
///     if case .event(let message) = event { print(message.name, message.arguments.json) }
/// }
/// ```
///
/// **Connections.** The client connects at once and on every reconnect runs the handshake:
/// the Engine.IO open packet, a CONNECT per namespace with its ``Configuration/auth``, then
/// ``Configuration/onConnect`` (re-join rooms); only then is the connection ready and the
/// outbox (`configuration.client.sendPolicy = .queue()`) goes out. Pings (`2`) are answered
/// `3`; no ping within `pingInterval + pingTimeout` ends the connection with
/// `heartbeat_timeout`, a malformed packet with `protocol_violation`, and the client
/// reconnects with backoff. A CONNECT_ERROR is final: the client stops with
/// ``SocketIOError/Code/connectRefused``.
///
/// **Connection state recovery.** When the server's CONNECT answer carries a `pid`, the last
/// argument of each event (a string) is its offset; the next CONNECT sends the `pid` and the
/// offset of the last event received, and the server replays what was broadcast since
/// (``SocketIOConnection/recovered``).
public final class SocketIOClient: Sendable {
    /// The connection underneath: ``RealtimeClient/state``, ``RealtimeClient/waitUntilOpen(timeout:)``,
    /// ``RealtimeClient/suspend()``, statistics. Its events are read by this client.
    public let realtime: RealtimeClient
    /// The configuration the client was made with.
    public let configuration: Configuration
    let core: SocketIOCore

    /// A client for the Socket.IO server at `url` (`ws` or `wss`; ``Configuration/path`` and
    /// the Engine.IO query are added). Connects at once.
    ///
    /// - Throws: ``RealtimeError`` `unsupportedScheme` for a scheme other than `ws`/`wss`,
    ///   `invalidConfiguration` for a configuration the client refuses.
    public convenience init(url: URL, configuration: Configuration = Configuration()) throws {
        try self.init(
            url: url, configuration: configuration, clock: ContinuousClock(),
            transportFactory: RealtimeClient.defaultTransportFactory(configuration: configuration.client))
    }

    /// A client with an injected clock (backoff, heartbeat deadlines, ack timeouts) and
    /// transport factory: how tests drive it with a manual clock and scripted transports.
    @_spi(Transport)
    public init<C: Clock>(
        url: URL, configuration: Configuration, clock: C, transportFactory: @escaping RealtimeClient.TransportFactory
    ) throws where C.Duration == Duration {
        guard RealtimeClient.transportKind(for: url) == .webSocket else {
            throw RealtimeError(.unsupportedScheme, detail: "Socket.IO runs over ws or wss")
        }
        let core = SocketIOCore(configuration: configuration, clock: ClientClock(clock))
        var client = configuration.client
        client.onOpen = { [weak core] context in
            guard let core else { throw RealtimeError(.cancelled) }
            try await core.handshake(context)
        }
        client.messageID = { [weak core] message in core?.offset(of: message) }
        realtime = try RealtimeClient(
            url: Self.engineURL(url, path: configuration.path), configuration: client, clock: clock,
            random: SystemRandomNumberGenerator(), transportFactory: core.transportFactory(transportFactory))
        self.configuration = configuration
        self.core = core
        core.realtime.withLock { $0.client = realtime }
        Task { [realtime] in await core.read(realtime) }
    }

    deinit {
        realtime.close()
    }

    /// `url` with `path` and `EIO=4&transport=websocket` (its other query items kept).
    static func engineURL(_ url: URL, path: String) -> URL {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        parts.path = path
        var items = (parts.queryItems ?? []).filter { $0.name != "EIO" && $0.name != "transport" }
        items += [URLQueryItem(name: "EIO", value: "4"), URLQueryItem(name: "transport", value: "websocket")]
        parts.queryItems = items
        return parts.url ?? url
    }

    /// The server's events, connections and disconnections, in order; one consumer. Read
    /// them: while ``Configuration/eventBufferCapacity`` events wait, the client stops
    /// reading the connection.
    public var events: SocketIOEvents { SocketIOEvents(inbox: core.inbox) }

    /// Acknowledgements that answered no emit waiting for one (an id never sent, or one
    /// answered already): ignored, and counted here.
    public var unmatchedAcks: Int { core.state.withLock { $0.unmatchedAcks } }

    /// Disconnects every namespace (DISCONNECT), closes the connection and ends ``events``;
    /// waiting acknowledgements fail with ``SocketIOError/Code/closed``. Idempotent.
    public func close() async {
        if realtime.isConnected {
            for namespace in configuration.namespaces {
                let packet = SocketIOPacket(kind: .disconnect, namespace: namespace)
                try? await realtime.send(.text("4" + packet.encoded), flush: true)
            }
        }
        // The acks go first: closing the client fails the emits still in its outbox, and
        // their waiters would get that error instead of `closed`.
        core.stop(SocketIOError(.closed))
        realtime.close()
    }
}
