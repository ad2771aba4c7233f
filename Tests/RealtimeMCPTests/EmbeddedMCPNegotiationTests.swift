#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeMCP
import RealtimeTesting
import Testing

/// How ``MCPClient`` picks the wire generation, and the HTTP+SSE transport of 2024-11-05, on
/// the embedded stack (``EmbeddedMCPServer``): every request the client makes is taken in
/// order, so "nothing more was sent" is a count.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedMCPNegotiationTests {
    typealias Request = EmbeddedMCPServer.Request

    /// Plays an HTTP+SSE server of 2024-11-05 on `stream`, the client's GET: the stream opens
    /// with its `endpoint` event, then `initialize` and `notifications/initialized` are POSTed
    /// there and accepted, the answer to `initialize` coming on the stream.
    static func answerHTTPSSEHandshake(_ mcp: EmbeddedMCPServer, on stream: Request) async throws {
        #expect(stream.method == "GET" && stream.headers["Accept"] == "text/event-stream")
        stream.openStream()
        stream.server.event("/messages?session=s1", type: "endpoint")
        let initialize = try await mcp.next()
        #expect(initialize.method == "POST" && initialize.rpcMethod == "initialize")
        #expect(initialize.server.request.url.absoluteString == "http://mcp.test/messages?session=s1")
        initialize.accepted()
        stream.event(initialize.result(["protocolVersion": "2024-11-05", "capabilities": ["tools": [:]], "serverInfo": ["name": "old", "version": "1"]]))
        let initialized = try await mcp.next()
        #expect(initialized.rpcMethod == "notifications/initialized")
        initialized.accepted()
    }

    /// Over HTTP+SSE the stream is the session: when the server ends it, a request whose POST
    /// was accepted and whose answer was still to come on the stream fails with
    /// `not_connected`, and so does a later one, unsent. Nothing is resumed and there is no
    /// session to delete. The transport cannot start again: `connect()` throws
    /// `not_connected` at once, as it does after `close()`.
    @Test func whenTheHTTPSSEStreamEndsRequestsFailWithNotConnected() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.revision = .fixed(.v2024_11_05) })
        let connecting = Task { try await client.connect() }
        let stream = try await mcp.next()
        try await Self.answerHTTPSSEHandshake(mcp, on: stream)
        #expect(try await connecting.value.revision == .v2024_11_05)
        let call = Task { try await client.callTool("t") }
        let post = try await mcp.next()
        #expect(post.rpcMethod == "tools/call")
        post.accepted()
        stream.server.finish()
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .notConnected, "\(String(describing: error))")
        let later = await #expect(throws: MCPError.self) { try await client.callTool("t") }
        #expect(later?.code == .notConnected, "\(String(describing: later))")
        let again = await #expect(throws: MCPError.self, "the transport ended for good") { try await client.connect() }
        #expect(again?.code == .notConnected && again?.detail?.contains("make a new one") == true, "\(String(describing: again))")
        await client.close()
        let closed = await #expect(throws: MCPError.self) { try await client.connect() }
        #expect(closed?.code == .notConnected && closed?.detail?.contains("closed") == true, "\(String(describing: closed))")
        #expect(mcp.requestCount == 4, "the GET, initialize, initialized and the call: no resumption, no DELETE, no new stream")
    }

    /// An HTTP+SSE stream that ends before naming its endpoint (or names an unusable one)
    /// never was a session: `connect()` fails, and a later `connect()` opens a new stream and
    /// succeeds.
    @Test(arguments: [false, true]) func aStreamEndedBeforeItsEndpointLetsConnectBeTriedAgain(namesAnotherOrigin: Bool) async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.revision = .fixed(.v2024_11_05) })
        let failing = Task { try await client.connect() }
        let first = try await mcp.next()
        first.openStream()
        if namesAnotherOrigin { first.server.event("http://elsewhere.test/messages", type: "endpoint") }
        first.server.finish()
        await #expect(throws: MCPError.self) { try await failing.value }
        let connecting = Task { try await client.connect() }
        try await Self.answerHTTPSSEHandshake(mcp, on: try await mcp.next())
        #expect(try await connecting.value.revision == .v2024_11_05)
        await client.close()
    }

    /// Negotiation: `initialize` refused with 400, 404 or 405 (what an HTTP+SSE server answers
    /// a POST to its stream's URL) switches to the HTTP+SSE transport of 2024-11-05: a GET of
    /// the same URL, then `initialize` on the endpoint its stream names.
    @Test(arguments: [400, 404, 405]) func negotiationFallsBackToHTTPSSEWhenInitializeIsRefused(status: Int) async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.revision = .negotiate })
        let connecting = Task { try await client.connect() }
        let discover = try await mcp.next()
        #expect(discover.rpcMethod == "server/discover")
        discover.status(400)
        let refused = try await mcp.next()
        #expect(refused.method == "POST" && refused.rpcMethod == "initialize")
        refused.status(status)
        let stream = try await mcp.next()
        #expect(stream.server.request.url == mcp.url)
        try await Self.answerHTTPSSEHandshake(mcp, on: stream)
        #expect(try await connecting.value.revision == .v2024_11_05)
        #expect(await client.transport.legacyEndpoint?.path == "/messages")
        await client.close()
        #expect(mcp.requestCount == 5)
    }

    /// Negotiation: `server/discover` refused with "unsupported protocol version" (`-32022`,
    /// HTTP 400, as the 2026-07-28 revision answers) whose `supported` names only stateless
    /// revisions fails `connect()` with `unsupported_revision`, and no `initialize` is sent;
    /// one that also names a handshake revision falls back to `initialize`.
    @Test(arguments: [["2027-01-26"], ["2025-11-25", "2027-01-26"]] as [[String]])
    func anUnsupportedVersionNamingOnlyStatelessRevisionsFailsConnect(supported: [String]) async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.revision = .negotiate })
        let connecting = Task { try await client.connect() }
        let discover = try await mcp.next()
        #expect(discover.rpcMethod == "server/discover")
        let error: JSONValue = [
            "code": -32022, "message": "Unsupported protocol version",
            "data": ["supported": .array(supported.map { .string($0) }), "requested": "2026-07-28"],
        ]
        discover.server.respond(status: 400, headers: [("Content-Type", "application/json")])
        discover.server.send(JSONValue.object(["jsonrpc": "2.0", "id": discover.id ?? .null, "error": error]).jsonString)
        discover.server.finish()
        if supported.contains("2025-11-25") {
            try await mcp.answerHandshake(session: "s1")
            #expect(try await connecting.value.revision == .v2025_11_25)
            try await EmbeddedMCPClientTests.close(client, mcp)
        } else {
            let failure = await #expect(throws: MCPError.self) { try await connecting.value }
            #expect(failure?.code == .unsupportedRevision, "\(String(describing: failure))")
            await client.close()
            #expect(mcp.requestCount == 1, "no initialize")
        }
    }
}
#endif
