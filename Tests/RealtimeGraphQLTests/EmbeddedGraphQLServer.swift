#if os(Linux)
import Foundation
@_spi(Transport) import Realtime
@_spi(Transport) import RealtimeGraphQL
@_spi(Transport) import RealtimeTesting
import RealtimeCore
import RealtimeTestSupport
import Testing

/// A ``GraphQLClient`` over the production WebSocket connection on the embedded stack: every
/// attempt's server is a ``EmbeddedGraphQLSocket`` the test plays, and the loop is the client's clock
/// (backoff without jitter: 1 s, 2 s, 4 s…; no network monitor; no heartbeat or keep-alive
/// unless `keepAlive` is set), so every timer moves only when the test moves the loop's time.
final class EmbeddedGraphQLServer: Sendable {
    static let ack = #"{"type":"connection_ack"}"#
    static let initMessage = #"{"type":"connection_init","payload":{"token":"t"}}"#

    let client: GraphQLClient
    let network = EmbeddedNetwork()
    var loop: ManualLoop { network.loop }
    private let attempts = LockedValue(0)

    /// What the test left queued runs, and what is still armed is dropped, so no connection
    /// outlives the test in a cycle with its loop.
    deinit { network.shutdown() }

    init(configure: (inout GraphQLClient.Configuration) -> Void = { _ in }) throws {
        var configuration = GraphQLClient.Configuration()
        configuration.connectionPayload = { ["token": "t"] }
        configuration.keepAlive = nil
        configuration.realtime.backoff = .exponential(jitter: .none)
        configuration.realtime.networkMonitor = nil
        configuration.realtime.heartbeat = .disabled
        configure(&configuration)
        // With a keep-alive, the transports run the heartbeat the client derives from it.
        let network = self.network
        let derived = LockedValue<RealtimeClient.TransportFactory?>(nil)
        let plain = network.transportFactory(configuration.realtime)
        client = try GraphQLClient(
            url: URL(string: "ws://graphql.test/graphql")!, configuration: configuration, clock: network.loop,
            random: SeededGenerator(seed: 1), transportFactory: { request in try (derived.withLock { $0 } ?? plain)(request) })
        if configuration.keepAlive != nil {
            let factory = network.transportFactory(client.realtime.configuration)
            derived.withLock { $0 = factory }
        }
    }

    /// The next connection attempt's server, once the client started it.
    func nextSocket(sourceLocation: SourceLocation = #_sourceLocation) async throws -> EmbeddedGraphQLSocket {
        let index = attempts.withLock { n in
            defer { n += 1 }
            return n
        }
        await network.waitForTransport(index)
        let server = try #require(network.webSocketServer(index), "no attempt \(index + 1)", sourceLocation: sourceLocation)
        return EmbeddedGraphQLSocket(server: server)
    }

    /// The next attempt, opened and its connection_init read; not acknowledged.
    func openUnacknowledged(sourceLocation: SourceLocation = #_sourceLocation) async throws -> EmbeddedGraphQLSocket {
        let socket = try await nextSocket(sourceLocation: sourceLocation)
        socket.open()
        #expect(await socket.nextSent() == Self.initMessage, sourceLocation: sourceLocation)
        return socket
    }

    /// The next attempt, opened, its connection_init read and acknowledged.
    func connect(sourceLocation: SourceLocation = #_sourceLocation) async throws -> EmbeddedGraphQLSocket {
        let socket = try await openUnacknowledged(sourceLocation: sourceLocation)
        socket.receive(Self.ack)
        return socket
    }

    /// A ticks subscription (``GraphQLClientTests/ticks``) on an acknowledged connection whose
    /// subscribe message was read: its results, and the socket.
    func subscribedToTicks(
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (GraphQLSubscription<Ticks>.AsyncIterator, EmbeddedGraphQLSocket) {
        let results = GraphQLClientTests.ticks(self).makeAsyncIterator()
        let socket = try await connect(sourceLocation: sourceLocation)
        #expect(await socket.nextSent() == Self.subscribe(1, GraphQLClientTests.ticks, variables: #"{"after":0}"#), sourceLocation: sourceLocation)
        return (results, socket)
    }

    /// Waits until the client waits to retry (its backoff timer is armed).
    func waitForTheBackoff() async {
        let state = await network.waitForState(of: client.realtime) { if case .waitingToRetry = $0 { true } else { false } }
        guard case .waitingToRetry(let delay)? = state else { return }
        await loop.waitForTimer(dueAt: loop.now.advanced(by: delay))
    }

    /// Waits for the client's backoff, then moves the loop's time by `d`.
    func advance(by d: Duration) async {
        await waitForTheBackoff()
        loop.advanceTime(by: d)
    }

    static func subscribe(_ id: Int, _ query: String, variables: String? = nil) -> String {
        let escaped = query.replacingOccurrences(of: "\"", with: "\\\"")
        let vars = variables.map { #","variables":\#($0)"# } ?? ""
        return #"{"id":"\#(id)","type":"subscribe","payload":{"query":"\#(escaped)"\#(vars)}}"#
    }

    static func next(_ id: Int, _ data: String) -> String {
        #"{"id":"\#(id)","type":"next","payload":{"data":\#(data)}}"#
    }

    static func tick(_ id: Int, _ seq: Int) -> String {
        next(id, #"{"ticks":{"seq":\#(seq)}}"#)
    }

    static func complete(_ id: Int) -> String {
        #"{"id":"\#(id)","type":"complete"}"#
    }
}
#endif
