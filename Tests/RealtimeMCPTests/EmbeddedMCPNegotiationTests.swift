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
    /// `not_connected`; nothing is resumed and there is no session to delete.
    @Test func whenTheHTTPSSEStreamEndsAPendingRequestFailsWithNotConnected() async throws {
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
        await client.close()
        #expect(mcp.requestCount == 4, "the GET, initialize, initialized and the call: no resumption, no DELETE")
    }
}
#endif
