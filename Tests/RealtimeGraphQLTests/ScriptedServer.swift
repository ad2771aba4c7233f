import Foundation
import Realtime
@_spi(Transport) import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// A ``GraphQLClient`` on scripted sockets and a manual clock (backoff without jitter:
/// 1 s, 2 s, 4 s…; no network monitor; no keep-alive unless configured): every timer of the
/// client moves only when the test moves the clock.
struct ScriptedServer {
    static let ack = #"{"type":"connection_ack"}"#
    static let initMessage = #"{"type":"connection_init","payload":{"token":"t"}}"#

    let client: GraphQLClient
    let clock = ManualClock()
    private let sockets: AsyncStream<ScriptedSocket>
    private let started: AsyncStream<ScriptedSocket>.Continuation

    init(configure: (inout GraphQLClient.Configuration) -> Void = { _ in }) throws {
        var configuration = GraphQLClient.Configuration()
        configuration.connectionPayload = { ["token": "t"] }
        configuration.keepAlive = nil
        configuration.realtime.backoff = .exponential(jitter: .none)
        configuration.realtime.networkMonitor = nil
        configure(&configuration)
        let (sockets, started) = AsyncStream.makeStream(of: ScriptedSocket.self)
        self.sockets = sockets
        self.started = started
        client = try GraphQLClient(
            url: URL(string: "ws://127.0.0.1:9/graphql")!, configuration: configuration, clock: clock,
            random: SeededGenerator(seed: 1),
            transportFactory: { request in ScriptedSocket(request: request) { started.yield($0) } })
    }

    /// The next connection attempt, once the client started it.
    func nextSocket(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ScriptedSocket {
        var iterator = sockets.makeAsyncIterator()
        return try #require(await iterator.next(), "no further attempt", sourceLocation: sourceLocation)
    }

    /// The next attempt, opened and its connection_init read; not acknowledged.
    func openUnacknowledged(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ScriptedSocket {
        let socket = try await nextSocket(sourceLocation: sourceLocation)
        socket.open()
        #expect(await socket.nextSent() == Self.initMessage, sourceLocation: sourceLocation)
        return socket
    }

    /// The next attempt, opened, its connection_init read and acknowledged.
    func connect(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ScriptedSocket {
        let socket = try await openUnacknowledged(sourceLocation: sourceLocation)
        socket.receive(Self.ack)
        return socket
    }

    /// A ticks subscription (``GraphQLClientTests/ticks``) on an acknowledged connection whose
    /// subscribe message was read: its results, and the socket.
    func subscribedToTicks(
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (GraphQLSubscription<Ticks>.AsyncIterator, ScriptedSocket) {
        let results = GraphQLClientTests.ticks(self).makeAsyncIterator()
        let socket = try await connect(sourceLocation: sourceLocation)
        #expect(await socket.nextSent() == Self.subscribe(1, GraphQLClientTests.ticks, variables: #"{"after":0}"#), sourceLocation: sourceLocation)
        return (results, socket)
    }

    /// Waits for the client's backoff timer, then moves the clock by `d`.
    func advance(by d: Duration) async {
        await clock.waitForSleepers(1)
        clock.advance(by: d)
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
