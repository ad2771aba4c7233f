#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeMCP
import RealtimeTesting
import RealtimeTestSupport
import Testing

/// Faults of the server and of the caller on the embedded stack (``EmbeddedMCPServer``): what
/// the client sends is taken in order, so "nothing more was sent" is what the next request is.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedMCPFaultTests {
    /// A call whose task is cancelled before it starts is never POSTed, and the server is not
    /// told to cancel it: a cancellation may only name a request that was issued (MCP,
    /// Cancellation). The next request the server sees is the next call.
    @Test func aCallCancelledBeforeItIsSentSendsNothing() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.callTool("never")
        }
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .cancelled)
        let ping = Task { try await client.ping() }
        let next = try await mcp.next()
        #expect(next.rpcMethod == "ping", "nothing about the cancelled call: \(String(describing: next.message))")
        next.json(next.result([:]))
        try await ping.value
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A request that times out closes its stream at once, whether or not the server ever
    /// answers the `notifications/cancelled` that tells it: nothing more of the answer is read.
    @Test func aTimedOutRequestsStreamClosesEvenWhenTheCancellationIsNeverAnswered() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, client: { $0.requestTimeout = .seconds(30) })
        let start = mcp.loop.now
        let call = Task { try await client.callTool("stuck") }
        let request = try await mcp.next()
        request.openStream()
        await mcp.loop.waitForTimer(dueAt: start.advanced(by: .seconds(30)))
        mcp.loop.advanceTime(by: .seconds(30))
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .timeout)
        let cancelled = try await mcp.next()
        #expect(cancelled.rpcMethod == "notifications/cancelled")
        cancelled.server.receiveRequest()  // and never answered
        await mcp.waitUntilEnded(request)
        cancelled.accepted()
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A server that takes the `notifications/initialized` POST and never answers it cannot
    /// hold `connect()`: its requests are bounded by the request timeout, and a notification's
    /// POST (answered 202 at once by a server) by the connect timeout.
    @Test func anInitializedNotificationNeverAnsweredFailsConnect() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(transport: { $0.connectTimeout = .seconds(10) }, client: { $0.requestTimeout = .seconds(60) })
        let connecting = Task { try await client.connect() }
        let initialize = try await mcp.next()
        initialize.json(
            initialize.result(["protocolVersion": "2025-11-25", "capabilities": [:], "serverInfo": ["name": "e", "version": "1"]]),
            headers: [("Mcp-Session-Id", "s1")])
        let initialized = try await mcp.next()
        #expect(initialized.rpcMethod == "notifications/initialized")
        initialized.server.receiveRequest()
        let start = mcp.loop.now
        await mcp.loop.waitForTimer(dueAt: start.advanced(by: .seconds(10)))
        mcp.loop.advanceTime(by: .seconds(60))
        let error = await #expect(throws: MCPError.self) { try await connecting.value }
        #expect(error?.code == .transport, "\(String(describing: error))")
        await mcp.waitUntilEnded(initialized)
        let closing = Task { await client.close() }
        let delete = try await mcp.next()
        #expect(delete.method == "DELETE")
        delete.status(204)
        await closing.value
    }
    /// A response whose id is the string form of the request's number id answers another
    /// request (JSON-RPC ids compare by type and value): `unknown_response_id`.
    @Test func aResponseWithTheRequestsIDAsAStringIsAnUnknownResponseID() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let call = Task { try await client.callTool("t") }
        let post = try await mcp.next()
        let id = try #require(post.id?.numberValue)
        post.openStream()
        post.event(["jsonrpc": "2.0", "id": .string(String(Int(id))), "result": .toolText("ok")])
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .unknownResponseID)
        try await EmbeddedMCPClientTests.close(client, mcp)
    }
    /// A server whose cursors come back to one already followed (c1, c2, c1…) would be asked
    /// for the same pages up to the 1,000-page bound: `allTools()` fails with
    /// `invalid_response` at the first cursor it has already sent, after three requests.
    @Test func allToolsStopsAtACursorThatLoops() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let all = Task { try await client.allTools() }
        for (n, next) in ["c1", "c2", "c1"].enumerated() {
            let request = try await mcp.next()
            #expect(request.rpcMethod == "tools/list")
            request.json(request.result(["tools": [["name": .string("t\(n)"), "inputSchema": ["type": "object"]]], "nextCursor": .string(next)]))
        }
        let error = await #expect(throws: MCPError.self) { try await all.value }
        #expect(error?.code == .invalidResponse)
        #expect(mcp.requestCount == 6, "the handshake, three pages, then no request for a page already read")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }
    /// Progress that comes after the result on the same stream reaches neither the finished
    /// call's handler nor anything else: the stream is done at its response.
    @Test func progressAfterTheResultIsNotDelivered() async throws {
        let mcp = EmbeddedMCPServer()
        let (client, seen, call, post) = try await EmbeddedMCPFeatureTests.callWithProgress(mcp)
        post.event(EmbeddedMCPHostileTests.BrokenAnswer.progress(post, 1))
        post.event(post.result(.toolText("done")))
        post.event(EmbeddedMCPHostileTests.BrokenAnswer.progress(post, 2))
        #expect(try await call.value.text == "done")
        await mcp.waitUntilEnded(post)
        #expect(seen.withLock { $0 } == [1])
        try await EmbeddedMCPClientTests.close(client, mcp)
    }
}
#endif
