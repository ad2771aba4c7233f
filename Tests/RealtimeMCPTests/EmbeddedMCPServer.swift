#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeMCP
@_spi(Transport) import RealtimeTesting
import Testing

/// An MCP server played on an ``EmbeddedNetwork``: every HTTP request the MCP client makes (a
/// POST per message, the server stream's GET, a resumption's GET, the session's DELETE) is an
/// SSE connection of the network, taken in order with ``next()``. The client's clients run on
/// the network's loop, which is also the clock of the MCP client's deadlines, so a test moves
/// every timeout by hand.
final class EmbeddedMCPServer: @unchecked Sendable {
    let network = EmbeddedNetwork()
    let url = URL(string: "http://mcp.test/mcp")!
    private var taken = 0

    var loop: ManualLoop { network.loop }

    deinit { network.shutdown() }

    /// An MCP client of this server, speaking 2025-11-25 unless `configure` says otherwise.
    func client(
        transport configureTransport: (inout MCPStreamableHTTPTransport.Configuration) -> Void = { _ in },
        client configure: (inout MCPClient.Configuration) -> Void = { _ in }
    ) -> MCPClient {
        var transportConfiguration = MCPStreamableHTTPTransport.Configuration()
        configureTransport(&transportConfiguration)
        let network = self.network
        let transport = MCPStreamableHTTPTransport(
            url: url, configuration: transportConfiguration, clock: network.loop,
            transportFactory: { configuration in
                var configuration = configuration
                configuration.networkMonitor = nil
                return network.transportFactory(configuration)
            })
        var configuration = MCPClient.Configuration()
        configuration.revision = .fixed(.v2025_11_25)
        configure(&configuration)
        return MCPClient(transport: transport, configuration: configuration)
    }

    /// The next request the client makes, once its connection exists. The loop runs whatever
    /// is queued on it meanwhile: a resumption's connection may start from a task of the
    /// transport's, after the timer that decided it.
    func next(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Request {
        let (network, loop, index) = (network, loop, taken)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await network.waitForTransport(index) }
            group.addTask { await loop.run(until: { Task.isCancelled }) }
            await group.next()
            group.cancelAll()
        }
        let server = try #require(network.sseServer(taken), sourceLocation: sourceLocation)
        taken += 1
        return Request(server)
    }

    /// Waits until the client closed `request`'s connection, running what it queues on the
    /// loop meanwhile (a time limit bounds a close that never comes).
    func waitUntilEnded(_ request: Request) async {
        await loop.run(until: { request.server.ended })
    }

    /// Requests made so far.
    var requestCount: Int { network.connectionCount }

    /// The handshake of 2025-11-25: `initialize` answered with session `session`, the
    /// `initialized` notification accepted, the server stream refused (405). `connect` is the
    /// client's `connect()`, running meanwhile.
    func handshake(session: String = "session-1", _ connect: Task<MCPServerInfo, any Error>) async throws {
        try await answerHandshake(session: session)
        _ = try await connect.value
    }

    /// Answers the requests of a 2025-11-25 handshake (see ``handshake(session:_:)``), the
    /// server declaring `capabilities`; the GET of the server stream only when `serverStream`
    /// (once refused, it is not asked for again). Returns the `initialize` request.
    @discardableResult
    func answerHandshake(
        session: String, capabilities: JSONValue = ["tools": [:]], serverStream: Bool = true
    ) async throws -> Request {
        let initialize = try await next()
        #expect(initialize.rpcMethod == "initialize")
        #expect(initialize.headers["Mcp-Session-Id"] == nil, "a new session is asked for without one")
        initialize.json(
            ["jsonrpc": "2.0", "id": initialize.id ?? .null,
             "result": ["protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": ["name": "embedded", "version": "1"]]],
            headers: [("Mcp-Session-Id", session)])
        let initialized = try await next()
        #expect(initialized.rpcMethod == "notifications/initialized" && initialized.headers["Mcp-Session-Id"] == session)
        initialized.accepted()
        guard serverStream else { return initialize }
        let stream = try await next()
        #expect(stream.method == "GET")
        stream.status(405)
        return initialize
    }

    /// One request as the server received it, and the server's side of its connection.
    struct Request {
        let server: EmbeddedSSEServer
        var method: String { server.request.method }
        var headers: HTTPHeaders { server.request.headers }
        /// The JSON-RPC message POSTed, if any.
        var message: JSONValue? { server.request.body.flatMap { try? JSONValue(json: Data($0)) } }
        var rpcMethod: String? { message?["method"]?.stringValue }
        var id: JSONValue? { message?["id"] }

        init(_ server: EmbeddedSSEServer) { self.server = server }

        /// Answers with one JSON body.
        func json(_ value: JSONValue, headers: [(String, String)] = []) {
            server.respond(status: 200, headers: [("Content-Type", "application/json")] + headers)
            server.send(value.jsonString)
            server.finish()
        }

        /// `202 Accepted`, no body.
        func accepted() { status(202) }

        /// A status with no body.
        func status(_ code: Int) {
            server.respond(status: code, headers: [])
            server.finish()
        }

        /// Opens an event stream; send its events with ``event(_:id:)``.
        func openStream() { server.respond() }

        /// One JSON-RPC message as an SSE event.
        func event(_ value: JSONValue, id: String? = nil) { server.event(value.jsonString, id: id) }

        /// The result of this request as a JSON-RPC response.
        func result(_ result: JSONValue) -> JSONValue { ["jsonrpc": "2.0", "id": id ?? .null, "result": result] }
    }
}

extension JSONValue {
    /// A tool result with one text block.
    static func toolText(_ text: String) -> JSONValue {
        ["content": [["type": "text", "text": .string(text)]], "isError": false]
    }
}

extension ManualLoop {
    /// Runs the loop each time work is queued on it until `done` holds (checked first, and
    /// after each run); a cancelled task ends the wait when `done` says so.
    func run(until done: () -> Bool) async {
        while !done() {
            await waitForWork()
            run()
        }
    }
}
#endif
