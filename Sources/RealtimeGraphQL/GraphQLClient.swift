#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import Realtime

/// GraphQL subscriptions over one WebSocket with `graphql-transport-ws` (the protocol of
/// The Guild's `graphql-ws`), on a ``RealtimeClient`` that reconnects with backoff.
///
/// ```swift
/// let client = try GraphQLClient(url: URL(string: "wss://api.example.com/graphql")!)
/// for try await result in client.subscribe("subscription { ticks { seq } }", as: Ticks.self) {
///     print(result.data?.ticks.seq ?? 0)
/// }
/// ```
///
/// **Connection.** The first `subscribe(_:as:operationName:variables:)` connects; every
/// connection begins with `connection_init` (the configured payload) and waits for
/// `connection_ack` (``Configuration/ackTimeout``) before any operation goes out. All
/// subscriptions share the connection. It stays up until ``close()``.
///
/// **Reconnects.** After a cut, a server restart or a close code the protocol retries, the
/// client reconnects with its backoff and, in the handshake, subscribes every live
/// subscription again, each with variables computed from the newest data it received
/// (`variables: { last in … }`): a feed that can resume from a cursor loses and repeats
/// nothing. Close codes 4400, 4403, 4406, 4409 (and a second 4401 in a row) end the client
/// with ``GraphQLClientError/Code/connectionRejected``.
///
/// **Ping and pong.** The server's `ping` is answered with `pong` as soon as it is read (one
/// behind results the application has not taken waits with them); the client sends its own
/// `ping` after ``Configuration/keepAlive`` of silence and reconnects when pongs stop.
public final class GraphQLClient: Sendable {
    /// The WebSocket subprotocol: `graphql-transport-ws`.
    public static let subprotocol = "graphql-transport-ws"

    /// The connection underneath, for its `state`, `stateChanges` and `statistics`. Its
    /// events belong to this client (a second consumer of them ends at once); do not send on it.
    public let realtime: RealtimeClient
    /// The configuration the client was made with.
    public let configuration: Configuration
    let session: GraphQLSession

    /// A client for the `ws`/`wss` endpoint `url`.
    ///
    /// - Throws: ``RealtimeError`` `unsupportedScheme` for a scheme other than `ws` or `wss`,
    ///   `invalidConfiguration` for a configuration that cannot work.
    public convenience init(url: URL, configuration: Configuration = Configuration()) throws {
        try self.init(url: url, configuration: configuration, clock: ContinuousClock(), random: SystemRandomNumberGenerator())
    }

    /// A client with an injected clock (backoff, the ack timeout), random generator (jitter)
    /// and transport factory, as the client's own:
    /// how tests drive it without a network or without waiting. `transportFactory` nil makes
    /// the default transports, set up with the configuration the client derives (its
    /// heartbeat, which carries the keep-alive, included).
    @_spi(Transport)
    public init<C: Clock, G: RandomNumberGenerator & Sendable>(
        url: URL, configuration: Configuration, clock: C, random: G,
        transportFactory: RealtimeClient.TransportFactory? = nil
    ) throws where C.Duration == Duration {
        guard RealtimeClient.transportKind(for: url) == .webSocket else {
            throw RealtimeError(.unsupportedScheme, detail: "graphql-transport-ws needs a ws or wss URL")
        }
        try configuration.validate()
        let session = GraphQLSession(configuration: configuration)
        let derived = configuration.realtimeConfiguration(session)
        let base = transportFactory ?? RealtimeClient.defaultTransportFactory(configuration: derived)
        realtime = try RealtimeClient(
            url: url, configuration: derived, clock: clock, random: random,
            transportFactory: session.transportFactory(base))
        session.attach(realtime)
        self.session = session
        self.configuration = configuration
    }

    /// Subscribes to `query` (graphql-transport-ws "Subscribe"), with variables computed
    /// from the newest data this subscription received: `last` is nil for the first
    /// subscribe, and after a reconnect it is the data of the newest result (handed to you
    /// or waiting in the subscription's buffer, which survives the reconnect), so a feed that
    /// resumes after it neither repeats nor skips a value:
    ///
    /// ```swift
    /// let ticks = client.subscribe(
    ///     "subscription($after: Int!) { ticks(after: $after) { seq } }", as: Ticks.self,
    ///     variables: { last in ["after": last?.ticks.seq ?? 0] })
    /// ```
    ///
    /// `variables` runs on the client's writer task when the subscribe goes out: keep it
    /// quick. It must return a value that encodes as a JSON object, or nil for none.
    ///
    /// The sequence yields each `next` payload (partial data with errors included, see
    /// ``GraphQLResult``), ends after the server's `complete`, and throws
    /// ``GraphQLClientError`` when the operation or the client ends with an error. Iterate
    /// it once. Cancelling the iterating task, ``GraphQLSubscription/cancel()`` or dropping
    /// the sequence stops the operation (`complete` goes to the server).
    public func subscribe<Value: Decodable & Sendable, Variables: Encodable & Sendable>(
        _ query: String, as type: Value.Type = Value.self, operationName: String? = nil,
        variables: @escaping @Sendable (_ last: Value?) -> Variables?
    ) -> GraphQLSubscription<Value> {
        GraphQLSubscription(session.subscribe(query: query, operationName: operationName) { last in variables(last) })
    }

    /// Subscribes to `query` with fixed `variables` (nil: none); see
    /// `subscribe(_:as:operationName:variables:)`.
    public func subscribe<Value: Decodable & Sendable>(
        _ query: String, as type: Value.Type = Value.self, operationName: String? = nil,
        variables: (any Encodable & Sendable)? = nil
    ) -> GraphQLSubscription<Value> {
        GraphQLSubscription(session.subscribe(query: query, operationName: operationName) { _ in variables })
    }

    /// Ends every subscription (each after the results it holds) and closes the connection
    /// (close code 1000). Idempotent; a subscription made after it throws
    /// ``GraphQLClientError/Code/closed``.
    public func close() {
        session.close()
    }
}
