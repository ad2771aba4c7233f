#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeMCP
import RealtimeTesting
import RealtimeTestSupport
import Testing

/// Documented promises of ``MCPClient`` about connecting, cancelling and failing, on the
/// embedded stack (``EmbeddedMCPServer``): every request is taken in order, so "nothing more
/// was sent" is a count.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedMCPSessionTests {
    typealias Request = EmbeddedMCPServer.Request

    /// An `initialize` that times out fails `connect()` with `request_timeout` and its stream is
    /// closed, but no `notifications/cancelled` is sent: a client must not cancel `initialize`.
    @Test func anInitializeThatTimesOutIsNotCancelledWithANotification() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.requestTimeout = .seconds(15) })
        let start = mcp.loop.now
        let connecting = Task { try await client.connect() }
        let initialize = try await mcp.next()
        #expect(initialize.rpcMethod == "initialize")
        initialize.openStream()
        await mcp.loop.waitForTimer(dueAt: start.advanced(by: .seconds(15)))
        mcp.loop.advanceTime(by: .seconds(15))
        let error = await #expect(throws: MCPError.self) { try await connecting.value }
        #expect(error?.code == .timeout)
        await mcp.loop.run(until: { initialize.server.ended || mcp.requestCount > 1 })
        #expect(mcp.requestCount == 1, "no notifications/cancelled for initialize")
        await client.close()
    }

    /// Cancelling the task of a call throws `cancelled`, tells the server with
    /// `notifications/cancelled` naming the request, and closes the request's stream.
    @Test func cancellingACallThrowsCancelledAndTellsTheServer() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let call = Task { try await client.callTool("long") }
        let request = try await mcp.next()
        request.openStream()
        call.cancel()
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .cancelled)
        let cancelled = try await mcp.next()
        #expect(cancelled.rpcMethod == "notifications/cancelled")
        #expect(cancelled.message?["params"]?["requestId"] == request.id)
        #expect(cancelled.message?["params"]?["reason"] == "cancelled by the client")
        cancelled.accepted()
        await mcp.waitUntilEnded(request)
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// On 2026-07-28 cancelling a call closes its stream and sends nothing more.
    @Test func cancellingAStatelessCallClosesItsStreamAndSendsNothing() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.stateless(mcp)
        let call = Task { try await client.callTool("long") }
        let listing = try await mcp.next()
        listing.json(listing.result(["tools": [["name": "long", "inputSchema": ["type": "object"]]]]))
        let request = try await mcp.next()
        #expect(request.rpcMethod == "tools/call")
        request.openStream()
        call.cancel()
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .cancelled)
        await mcp.waitUntilEnded(request)
        await client.close()
        #expect(mcp.requestCount == 3, "discover, the list, the call: no notifications/cancelled")
    }

    /// A JSON-RPC error answer fails the call with `rpc_error` and the server's code, message
    /// and data; the call is sent once.
    @Test func aJSONRPCErrorFailsTheCallWithItsCodeMessageAndData() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let call = Task { try await client.callTool("missing") }
        let request = try await mcp.next()
        let rpcError: JSONValue = ["code": -32602, "message": "unknown tool: missing", "data": ["tool": "missing"]]
        request.json(["jsonrpc": "2.0", "id": request.id ?? .null, "error": rpcError])
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .rpc && error?.rpcCode == -32602)
        #expect(error?.message == "unknown tool: missing" && error?.data == ["tool": "missing"])
        #expect(mcp.requestCount == 4, "the call is not sent again")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A server's own error -32000 is an `rpc_error` even when its data names a transport
    /// code: only the responses the transport writes itself carry one.
    @Test func aServerErrorThatLooksLikeTheTransportsIsAnRPCError() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let call = Task { try await client.callTool("t") }
        let request = try await mcp.next()
        let rpcError: JSONValue = ["code": -32000, "message": "busy", "data": ["transport": "session_expired"]]
        request.json(["jsonrpc": "2.0", "id": request.id ?? .null, "error": rpcError])
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .rpc && error?.rpcCode == -32000, "\(String(describing: error))")
        #expect(error?.message == "busy" && error?.data == ["transport": "session_expired"])
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// `close()` fails a call still waiting for its answer with `not_connected`.
    @Test func closeFailsAPendingCallWithNotConnected() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let call = Task { try await client.callTool("long") }
        let request = try await mcp.next()
        request.openStream()
        try await EmbeddedMCPClientTests.close(client, mcp)
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .notConnected, "\(String(describing: error))")
    }

    /// Without `renewsExpiredSession`, a 404 fails the call with `session_expired`, drops the
    /// session id and starts no new session.
    @Test func withoutRenewalAnExpiredSessionIsDroppedAndNoNewOneStarts() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let call = Task { try await client.callTool("t") }
        try await mcp.next().status(404)
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .sessionExpired)
        #expect(await client.transport.sessionID == nil)
        #expect(mcp.requestCount == 4, "no initialize")
        await client.close()
    }

    /// The server is told the configured `capabilities` and `clientInfo` as they are: a
    /// registered handler adds no capability.
    @Test func initializeCarriesTheConfiguredCapabilitiesAndClientInfoAsTheyAre() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: {
            $0.capabilities = ["sampling": [:]]
            $0.clientInfo = ["name": "notes", "version": "2.1"]
        })
        await client.setRequestHandler("roots/list") { _ in ["roots": []] }
        let connecting = Task { try await client.connect() }
        let initialize = try await mcp.answerHandshake(session: "s1")
        _ = try await connecting.value
        let params = initialize.message?["params"]
        #expect(params?["protocolVersion"] == "2025-11-25")
        #expect(params?["capabilities"] == ["sampling": [:]], "no roots capability added")
        #expect(params?["clientInfo"] == ["name": "notes", "version": "2.1"])
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// After a failed `connect()`, a later one that succeeds lets requests through again, on
    /// the new session.
    @Test func aConnectAfterAFailedOneLetsRequestsThroughAgain() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client()
        let failing = Task { try await client.connect() }
        try await mcp.next().status(500)
        await #expect(throws: MCPError.self) { try await failing.value }
        try await mcp.handshake(session: "s2", Task { try await client.connect() })
        let ping = Task { try await client.ping() }
        let request = try await mcp.next()
        #expect(request.rpcMethod == "ping" && request.headers["Mcp-Session-Id"] == "s2")
        request.json(request.result([:]))
        try await ping.value
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// `responseTimeout` bounds how long a POST's answer may take to start, on its own: a
    /// head that never comes fails the call at that bound, long before the request timeout.
    @Test func aResponseTimeoutBoundsTheStartOfAnAnswer() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, transport: { $0.responseTimeout = .seconds(5) })
        let start = mcp.loop.now
        let call = Task { try await client.callTool("slow") }
        let request = try await mcp.next()
        request.server.receiveRequest()
        await mcp.loop.waitForTimer(dueAt: start.advanced(by: .seconds(5)))
        mcp.loop.advanceTime(by: .seconds(5) - .milliseconds(1))
        #expect(!request.server.ended, "not before the bound")
        mcp.loop.advanceTime(by: .milliseconds(1))
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .transport, "\(String(describing: error))")
        await mcp.waitUntilEnded(request)
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// With `opensServerStream` false no GET stream is opened after the handshake: the next
    /// request is the application's.
    @Test func withoutOpensServerStreamNoGETStreamIsOpened() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(transport: { $0.opensServerStream = false })
        let connecting = Task { try await client.connect() }
        try await mcp.answerHandshake(session: "s1", serverStream: false)
        _ = try await connecting.value
        let ping = Task { try await client.ping() }
        let request = try await mcp.next()
        #expect(request.method == "POST" && request.rpcMethod == "ping")
        request.json(request.result([:]))
        try await ping.value
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// An `initialize` answered with a revision the handshake cannot speak fails `connect()`
    /// with `unsupported_revision`; `notifications/initialized` is not sent.
    @Test(arguments: ["2024-11-05", "2026-07-28", "2025-01-01"])
    func anInitializeAnsweredWithARevisionItCannotSpeakFailsConnect(version: String) async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client()
        let connecting = Task { try await client.connect() }
        let initialize = try await mcp.next()
        initialize.json(initialize.result(["protocolVersion": .string(version), "capabilities": [:], "serverInfo": ["name": "x", "version": "1"]]))
        let error = await #expect(throws: MCPError.self) { try await connecting.value }
        #expect(error?.code == .unsupportedRevision, "\(String(describing: error))")
        await client.close()
        #expect(mcp.requestCount == 1, "no notifications/initialized")
    }

    /// Negotiation falls back to `initialize` when `server/discover` gets a JSON-RPC error
    /// (a server without the method) or offers no 2026-07-28.
    @Test(arguments: [true, false]) func negotiationFallsBackToInitializeWhenDiscoverDoesNotOfferStateless(rpcError: Bool) async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.revision = .negotiate })
        let connecting = Task { try await client.connect() }
        let discover = try await mcp.next()
        #expect(discover.rpcMethod == "server/discover")
        if rpcError {
            discover.json(["jsonrpc": "2.0", "id": discover.id ?? .null, "error": ["code": -32601, "message": "Method not found"]])
        } else {
            discover.json(discover.result(["supportedVersions": ["2025-06-18", "2025-11-25"], "capabilities": [:]]))
        }
        try await mcp.answerHandshake(session: "s1")
        #expect(try await connecting.value.revision == .v2025_11_25)
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A 5xx to `server/discover` is no answer about revisions: `connect()` fails with it and
    /// does not fall back to `initialize`.
    @Test func a5xxToServerDiscoverFailsConnectWithoutFallingBack() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.revision = .negotiate })
        let connecting = Task { try await client.connect() }
        try await mcp.next().status(503)
        let error = await #expect(throws: MCPError.self) { try await connecting.value }
        #expect(error?.status == 503, "\(String(describing: error))")
        await client.close()
        #expect(mcp.requestCount == 1, "no initialize")
    }
}
#endif
