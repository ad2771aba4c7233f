#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeMCP
import RealtimeTesting
import RealtimeTestSupport
import Testing

/// ``MCPClient`` over the production Streamable HTTP transport on an embedded network: each of
/// its HTTP requests is a production SSE connection the test answers (``EmbeddedMCPServer``),
/// and every deadline (a request's timeout, the connect and response timeouts of its POST, a
/// resumption's backoff, the DELETE's bound) is a timer of the network's loop, moved by hand.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedMCPClientTests {
    /// A connected client, the handshake done, no timer left on the loop.
    static func connected(
        _ mcp: EmbeddedMCPServer, transport: (inout MCPStreamableHTTPTransport.Configuration) -> Void = { _ in },
        client configure: (inout MCPClient.Configuration) -> Void = { _ in }
    ) async throws -> MCPClient {
        let client = mcp.client(transport: transport, client: configure)
        try await mcp.handshake(Task { try await client.connect() })
        mcp.loop.run()
        #expect(mcp.loop.pendingTimerCount == 0, "nothing of the handshake is left armed")
        return client
    }

    /// Closes the client, answering its DELETE.
    static func close(_ client: MCPClient, _ mcp: EmbeddedMCPServer) async throws {
        let closing = Task { await client.close() }
        let delete = try await mcp.next()
        #expect(delete.method == "DELETE")
        delete.status(204)
        await closing.value
    }

    /// A tool that works for minutes before its server answers is bounded by the request
    /// timeout, not by the connect timeout: the POST's head may come long after the request.
    @Test func aToolSlowerThanTheConnectTimeoutAnswersWithinItsRequestTimeout() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(
            mcp, transport: { $0.connectTimeout = .seconds(10) }, client: { $0.requestTimeout = .seconds(300) })
        let call = Task { try await client.callTool("slow") }
        let request = try await mcp.next()
        #expect(request.rpcMethod == "tools/call" && request.message?["params"]?["name"] == "slow")
        request.server.receiveRequest()
        mcp.loop.advanceTime(by: .seconds(240))
        #expect(!request.server.ended, "still waiting for the tool, four minutes in")
        request.openStream()
        request.event(request.result(.toolText("done")))
        #expect(try await call.value.text == "done")
        #expect(mcp.requestCount == 4, "one POST")
        try await Self.close(client, mcp)
    }

    /// A request with no answer fails with `timeout` exactly at its request timeout, its POST's
    /// stream is closed, and the server is told with `notifications/cancelled`.
    @Test func aRequestTimesOutExactlyAtItsTimeoutAndTheServerIsTold() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(mcp, client: { $0.requestTimeout = .seconds(30) })
        let start = mcp.loop.now
        let call = Task { try await client.callTool("stuck") }
        let request = try await mcp.next()
        request.openStream()
        await mcp.loop.waitForTimer(dueAt: start.advanced(by: .seconds(30)))  // the request's deadline, armed with it
        mcp.loop.advanceTime(by: .seconds(30) - .milliseconds(1))
        #expect(mcp.requestCount == 4, "nothing told before the deadline")
        mcp.loop.advanceTime(by: .milliseconds(1))
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .timeout)
        let cancelled = try await mcp.next()
        #expect(cancelled.rpcMethod == "notifications/cancelled")
        #expect(cancelled.message?["params"]?["requestId"] == request.id)
        cancelled.accepted()
        await mcp.waitUntilEnded(request)  // the request's stream is closed
        try await Self.close(client, mcp)
    }

    @Test func progressArrivesInOrderBeforeTheResult() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(mcp)
        let seen = LockedValue<[Double]>([])
        let call = Task { try await client.callTool("t") { progress in seen.withLock { $0.append(progress.progress) } } }
        let request = try await mcp.next()
        let token = try #require(request.message?["params"]?["_meta"]?["progressToken"])
        #expect(token == request.id)
        request.openStream()
        for step in [1.0, 2.0] {
            request.event(["jsonrpc": "2.0", "method": "notifications/progress", "params": ["progressToken": token, "progress": .number(step), "total": 3]])
        }
        request.event(request.result(.toolText("ok")))
        #expect(try await call.value.text == "ok")
        #expect(seen.withLock { $0 } == [1, 2])
        try await Self.close(client, mcp)
    }

    /// A tool that failed is a result, not an error (MCP: tool errors are reported in the
    /// result, `isError: true`): `callTool` returns it with the server's message as its text.
    @Test func aFailedToolIsAResultMarkedIsError() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(mcp)
        let call = Task { try await client.callTool("boom") }
        let post = try await mcp.next()
        #expect(post.rpcMethod == "tools/call")
        post.json(post.result(["content": [["type": "text", "text": "Error executing tool boom"]], "isError": true]))
        let result = try await call.value
        #expect(result.isError && result.text == "Error executing tool boom")
        try await Self.close(client, mcp)
    }

    /// Calls tool `t`; its stream brings event `e1` and is cut; the resumption's GET comes
    /// once the backoff (2 s) is over, not before. Returns the call, its POST and that GET.
    static func callCutThenResumed(
        _ client: MCPClient, _ mcp: EmbeddedMCPServer
    ) async throws -> (call: Task<MCPToolResult, any Error>, post: EmbeddedMCPServer.Request, resume: EmbeddedMCPServer.Request) {
        let call = Task { try await client.callTool("t") }
        let post = try await mcp.next()
        post.openStream()
        post.event(["jsonrpc": "2.0", "method": "notifications/message", "params": ["level": "info", "data": "working"]], id: "e1")
        post.server.reset()
        await mcp.loop.waitForTimer(dueAt: mcp.loop.now.advanced(by: .seconds(2)))  // the resumption's backoff
        mcp.loop.advanceTime(by: .seconds(2) - .milliseconds(1))
        #expect(mcp.requestCount == 4, "not before the backoff")
        mcp.loop.advanceTime(by: .milliseconds(1))
        let resume = try await mcp.next()
        #expect(resume.method == "GET" && resume.server.request.lastEventID == "e1")
        return (call, post, resume)
    }

    /// A POST's stream cut after an event is resumed with a GET carrying `Last-Event-ID`, once
    /// the backoff is over; the POST is never sent again.
    @Test func aCutStreamIsResumedWithAGETFromItsLastEventAndThePOSTIsNotRepeated() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(mcp, transport: { $0.backoff = .constant(.seconds(2)) })
        let (call, post, resume) = try await Self.callCutThenResumed(client, mcp)
        #expect(resume.method == "GET" && resume.server.request.body == nil)
        #expect(resume.server.request.lastEventID == "e1")
        #expect(resume.headers["Mcp-Session-Id"] == "session-1")
        resume.openStream()
        resume.event(post.result(.toolText("resumed")), id: "e2")
        #expect(try await call.value.text == "resumed")
        #expect(mcp.requestCount == 5, "one POST, one GET")
        try await Self.close(client, mcp)
    }

    /// `close()` ends the session with a `DELETE` carrying its id; a server that answers it
    /// and never ends its body holds `close()` for twice the connect timeout, not longer.
    @Test func closeEndsTheSessionWithADeleteThatAServerCannotHoldPastItsBound() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(mcp, transport: { $0.connectTimeout = .seconds(10) })
        let start = mcp.loop.now
        let closing = Task { await client.close() }
        let delete = try await mcp.next()
        #expect(delete.method == "DELETE" && delete.headers["Mcp-Session-Id"] == "session-1")
        delete.openStream()  // a head, then nothing
        await mcp.loop.waitForTimer(dueAt: start.advanced(by: .seconds(20)))
        mcp.loop.advanceTime(by: .seconds(20) - .milliseconds(1))
        #expect(!delete.server.ended, "held until the bound")
        mcp.loop.advanceTime(by: .milliseconds(1))
        await closing.value
        await mcp.waitUntilEnded(delete)
        let error = await #expect(throws: MCPError.self) { try await client.callTool("t") }
        #expect(error?.code == .notConnected)
    }

    /// The answer to a read is lost (its stream cut, no resumption): the read is sent again
    /// as a new request after 100 ms on the clock. A tool call that is not safe to repeat
    /// fails with `stream_ended` instead, sent once.
    @Test func aLostAnswerToAReadIsReissuedAfterItsPauseAndACallIsNot() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(mcp, transport: { $0.maxResumeAttempts = 0 })
        let listing = Task { try await client.listTools() }
        let first = try await mcp.next()
        #expect(first.rpcMethod == "tools/list")
        first.openStream()
        first.server.reset()
        await mcp.loop.waitForTimer(dueAt: mcp.loop.now.advanced(by: .milliseconds(100)))  // the pause before the reissue
        mcp.loop.advanceTime(by: .milliseconds(99))
        #expect(mcp.requestCount == 4, "not before the pause is over")
        mcp.loop.advanceTime(by: .milliseconds(1))
        let second = try await mcp.next()
        #expect(second.rpcMethod == "tools/list" && second.id != first.id, "a new request")
        second.json(second.result(["tools": [["name": "echo", "inputSchema": ["type": "object"]]]]))
        #expect(try await listing.value.items.map(\.name) == ["echo"])

        let call = Task { try await client.callTool("write") }
        let post = try await mcp.next()
        post.openStream()
        post.server.reset()
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .streamEnded)
        #expect(mcp.requestCount == 6, "the call is not sent again")
        try await Self.close(client, mcp)
    }

    /// A tool whose annotations say it is idempotent (or read-only) is safe to call again: a
    /// lost answer is sent again as a new request at most `maxReissues` times (2 by default),
    /// 0.1 s then 0.2 s after the loss, then the call fails with `stream_ended`.
    @Test(arguments: ["idempotentHint", "readOnlyHint"]) func aLostAnswerToAnIdempotentToolIsReissuedAtMostMaxReissuesTimes(hint: String) async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(mcp, transport: { $0.maxResumeAttempts = 0 })
        let listing = Task { try await client.listTools() }
        let list = try await mcp.next()
        list.json(list.result(["tools": [["name": "set", "inputSchema": ["type": "object"], "annotations": [hint: true]]]]))
        _ = try await listing.value
        let call = Task { try await client.callTool("set") }
        var ids: Set<JSONValue> = []
        for pause in [nil, Duration.milliseconds(100), .milliseconds(200)] {
            if let pause {
                await mcp.loop.waitForTimer(dueAt: mcp.loop.now.advanced(by: pause))  // the pause before the reissue
                let count = mcp.requestCount
                mcp.loop.advanceTime(by: pause - .milliseconds(1))
                #expect(mcp.requestCount == count, "not before the \(pause) pause")
                mcp.loop.advanceTime(by: .milliseconds(1))
            }
            let post = try await mcp.next()
            #expect(post.rpcMethod == "tools/call" && post.message?["params"]?["name"] == "set")
            ids.insert(post.id ?? .null)
            post.openStream()
            post.server.reset()
        }
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .streamEnded)
        #expect(ids.count == 3, "each time a new request")
        #expect(mcp.requestCount == 7, "the list, then the call and two reissues")
        try await Self.close(client, mcp)
    }

    /// The session's GET stream, cut after an event, is resumed with a GET carrying that
    /// event's id as `Last-Event-ID`, after the server's `retry:`; what the server sends on
    /// either stream reaches `notifications`.
    @Test func aCutServerStreamIsResumedWithItsLastEventID() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(transport: { $0.backoff = .constant(.seconds(5)) })
        let connecting = Task { try await client.connect() }
        try await mcp.answerHandshake(session: "session-1", serverStream: false)
        let stream = try await mcp.next()
        #expect(stream.method == "GET" && stream.server.request.lastEventID == nil)
        stream.openStream()
        _ = try await connecting.value
        var notifications = client.notifications.makeAsyncIterator()
        let changed: JSONValue = ["jsonrpc": "2.0", "method": "notifications/tools/list_changed"]
        stream.server.event(changed.jsonString, id: "g1", retry: 300)
        #expect(await notifications.next()?.method == "notifications/tools/list_changed")
        stream.server.reset()
        await mcp.loop.waitForTimer(dueAt: mcp.loop.now.advanced(by: .milliseconds(300)))  // the server's retry, not the backoff
        mcp.loop.advanceTime(by: .milliseconds(299))
        #expect(mcp.requestCount == 3, "not before the server's retry")
        mcp.loop.advanceTime(by: .milliseconds(1))
        let resumed = try await mcp.next()
        #expect(resumed.method == "GET" && resumed.server.request.lastEventID == "g1")
        #expect(resumed.headers["Mcp-Session-Id"] == "session-1")
        resumed.openStream()
        resumed.event(["jsonrpc": "2.0", "method": "notifications/prompts/list_changed"], id: "g2")
        #expect(await notifications.next()?.method == "notifications/prompts/list_changed")
        try await Self.close(client, mcp)
    }

    /// A 404 for the session: the request fails with `session_expired` and is not sent again;
    /// with `renewsExpiredSession` a new session is made first, and the next request uses it.
    @Test func anExpiredSessionIsRenewedBeforeTheErrorAndTheNextRequestUsesTheNewOne() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(mcp, client: { $0.renewsExpiredSession = true })
        let call = Task { try await client.callTool("t") }
        let refused = try await mcp.next()
        #expect(refused.headers["Mcp-Session-Id"] == "session-1")
        refused.status(404)
        try await mcp.answerHandshake(session: "session-2", serverStream: false)
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .sessionExpired && error?.status == 404)
        let next = Task { try await client.callTool("t") }
        let request = try await mcp.next()
        #expect(request.rpcMethod == "tools/call" && request.headers["Mcp-Session-Id"] == "session-2")
        request.json(request.result(.toolText("fresh")))
        #expect(try await next.value.text == "fresh")
        try await Self.close(client, mcp)
    }

    /// The server's GET stream belongs to its session: when the session expires it is closed,
    /// and the renewed session opens its own, with the new session id.
    @Test func aRenewedSessionOpensItsOwnServerStream() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.renewsExpiredSession = true })
        let connecting = Task { try await client.connect() }
        try await mcp.answerHandshake(session: "session-1", serverStream: false)
        let stream = try await mcp.next()
        #expect(stream.method == "GET" && stream.headers["Mcp-Session-Id"] == "session-1")
        stream.openStream()
        _ = try await connecting.value
        let call = Task { try await client.callTool("t") }
        try await mcp.next().status(404)
        try await mcp.answerHandshake(session: "session-2", serverStream: false)
        await mcp.waitUntilEnded(stream)
        let renewed = try await mcp.next()
        #expect(renewed.method == "GET" && renewed.headers["Mcp-Session-Id"] == "session-2")
        renewed.status(405)
        await #expect(throws: MCPError.self) { try await call.value }
        try await Self.close(client, mcp)
    }

    /// A renewal that fails leaves no session: the next request renews it first, then goes
    /// out on the new session with the negotiated revision.
    @Test func aFailedRenewalIsTriedAgainBeforeTheNextRequest() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(mcp, client: { $0.renewsExpiredSession = true })
        let call = Task { try await client.callTool("t") }
        try await mcp.next().status(404)
        let renewal = try await mcp.next()
        #expect(renewal.rpcMethod == "initialize")
        renewal.status(500)
        await #expect(throws: MCPError.self) { try await call.value }
        let next = Task { try await client.callTool("t") }
        try await mcp.answerHandshake(session: "session-2", serverStream: false)
        let request = try await mcp.next()
        #expect(request.rpcMethod == "tools/call" && request.headers["Mcp-Session-Id"] == "session-2")
        #expect(request.headers["MCP-Protocol-Version"] == "2025-11-25")
        request.json(request.result(.toolText("ok")))
        #expect(try await next.value.text == "ok")
        try await Self.close(client, mcp)
    }

    /// A resumption's GET refused with 404 expires the session: the call fails with
    /// `session_expired`, and with `renewsExpiredSession` the next request renews it first;
    /// without, it fails at once, unsent, until `connect()` starts a new session.
    @Test(arguments: [true, false]) func aResumptionRefusedWith404ExpiresTheSession(renews: Bool) async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.connected(
            mcp, transport: { $0.backoff = .constant(.seconds(2)) }, client: { $0.renewsExpiredSession = renews })
        let (call, _, resume) = try await Self.callCutThenResumed(client, mcp)
        resume.status(404)
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .sessionExpired && error?.status == 404, "not stream_ended: \(String(describing: error))")
        if !renews { #expect(await client.transport.sessionID == nil, "the forgotten session is not sent again") }
        let next = Task { try await client.callTool("t") }
        guard renews else {
            let refused = await #expect(throws: MCPError.self) { try await next.value }
            #expect(refused?.code == .sessionExpired && mcp.requestCount == 5, "nothing sent without a session")
            return await client.close()
        }
        try await mcp.answerHandshake(session: "session-2", serverStream: false)
        let request = try await mcp.next()
        #expect(request.rpcMethod == "tools/call" && request.headers["Mcp-Session-Id"] == "session-2")
        request.json(request.result(.toolText("ok")))
        #expect(try await next.value.text == "ok")
        try await Self.close(client, mcp)
    }

    /// Over the HTTP+SSE transport of 2024-11-05, a stream that never names its endpoint
    /// fails `connect()` with `timeout` at the request timeout, not before.
    @Test func anHTTPSSEStreamWithoutItsEndpointFailsConnectAtTheRequestTimeout() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.revision = .fixed(.v2024_11_05); $0.requestTimeout = .seconds(15) })
        let start = mcp.loop.now
        let connecting = Task { try await client.connect() }
        let stream = try await mcp.next()
        #expect(stream.method == "GET")
        stream.openStream()
        stream.server.send(": keep-alive\n\n")  // an event stream, but no endpoint event
        await mcp.loop.waitForTimer(dueAt: start.advanced(by: .seconds(15)))
        mcp.loop.advanceTime(by: .seconds(15) - .milliseconds(1))
        #expect(!stream.server.ended)
        mcp.loop.advanceTime(by: .milliseconds(1))
        let error = await #expect(throws: MCPError.self) { try await connecting.value }
        #expect(error?.code == .timeout)
        await mcp.waitUntilEnded(stream)
    }

    /// A stateless client, connected with `server/discover`.
    static func stateless(
        _ mcp: EmbeddedMCPServer, requestTimeout: Duration = .seconds(60),
        transport: (inout MCPStreamableHTTPTransport.Configuration) -> Void = { _ in }
    ) async throws -> MCPClient {
        let client = mcp.client(transport: transport, client: { $0.revision = .fixed(.v2026_07_28); $0.requestTimeout = requestTimeout })
        let connecting = Task { try await client.connect() }
        let discover = try await mcp.next()
        #expect(discover.rpcMethod == "server/discover" && discover.headers["Mcp-Session-Id"] == nil)
        discover.json(discover.result(["supportedVersions": ["2026-07-28"], "capabilities": ["tools": [:]]]))
        #expect(try await connecting.value.revision == .v2026_07_28)
        return client
    }

    /// `allTools()` reuses a list for its `ttlMs`, measured on the transport's clock, and asks
    /// again once it has passed.
    @Test func allToolsReusesItsListForItsTTLAndAsksAgainAfter() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.stateless(mcp)
        let answer = { (request: EmbeddedMCPServer.Request, name: String) in
            request.json(request.result(["tools": [["name": .string(name), "inputSchema": ["type": "object"]]], "ttlMs": 30_000]))
        }
        let first = Task { try await client.allTools() }
        answer(try await mcp.next(), "a")
        #expect(try await first.value.map(\.name) == ["a"])
        mcp.loop.advanceTime(by: .seconds(30) - .milliseconds(1))
        #expect(try await client.allTools().map(\.name) == ["a"], "reused")
        #expect(mcp.requestCount == 2, "without asking")
        mcp.loop.advanceTime(by: .milliseconds(1))
        let second = Task { try await client.allTools() }
        answer(try await mcp.next(), "b")
        #expect(try await second.value.map(\.name) == ["b"])
    }

    /// 2026-07-28 has no session: `server/discover` instead of a handshake, each request
    /// names its method in headers (a tool call's after the tools were listed once, for their
    /// parameter headers), and a request that times out is cancelled by closing its
    /// stream, with nothing more sent; `close()` has no session to delete.
    @Test func onTheStatelessRevisionATimeoutClosesTheStreamAndSendsNothingMore() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.stateless(mcp, requestTimeout: .seconds(20))
        let call = Task { try await client.callTool("stuck") }
        let listing = try await mcp.next()  // the tools' parameter headers, learnt once
        #expect(listing.rpcMethod == "tools/list" && listing.headers["Mcp-Method"] == "tools/list")
        listing.json(listing.result(["tools": [["name": "stuck", "inputSchema": ["type": "object"]]]]))
        let request = try await mcp.next()
        #expect(request.headers["Mcp-Method"] == "tools/call" && request.headers["Mcp-Name"] == "stuck")
        #expect(request.headers["MCP-Protocol-Version"] == "2026-07-28" && request.headers["Mcp-Session-Id"] == nil)
        request.openStream()
        mcp.loop.advanceTime(by: .seconds(20))
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .timeout)
        await mcp.waitUntilEnded(request)
        await client.close()
        #expect(mcp.requestCount == 3, "no notifications/cancelled, no DELETE")
    }

    /// A listen refused with 408, 429 or a 5xx does not end: it is listened to again after a
    /// pause that doubles with each refusal in a row, from 0.2 s up to 10 s. Another 4xx (403)
    /// ends the sequence with its error.
    @Test func aListenRefusedWith408429Or503IsListenedToAgainWithPausesDoublingToTenSeconds() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.stateless(mcp)
        let listening = Task {
            for try await _ in client.listen(MCPSubscriptionFilter(toolsListChanged: true)) {}
        }
        let pauses: [Duration] = [200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000].map { .milliseconds($0) }
        for (n, pause) in pauses.enumerated() {
            let listen = try await mcp.next()
            #expect(listen.rpcMethod == "subscriptions/listen")
            listen.status([408, 429, 503][n % 3])
            await mcp.loop.waitForTimer(dueAt: mcp.loop.now.advanced(by: pause))
            let count = mcp.requestCount
            mcp.loop.advanceTime(by: pause - .milliseconds(1))
            #expect(mcp.requestCount == count, "not before the \(pause) pause")
            mcp.loop.advanceTime(by: .milliseconds(1))
        }
        let forbidden = try await mcp.next()
        #expect(forbidden.rpcMethod == "subscriptions/listen")
        forbidden.status(403)
        let error = await #expect(throws: MCPError.self) { try await listening.value }
        #expect(error?.status == 403, "\(String(describing: error))")
        #expect(mcp.requestCount == 10, "discover, eight refused listens, the forbidden one")
        await client.close()
    }

    /// A listen stream the server ends is listened to again after a pause on the transport's
    /// clock: 0.2 s after a stream that brought only its acknowledgement, 0.1 s after one that
    /// brought a change; each new stream starts with `listening` again.
    @Test func aListenStreamIsListenedToAgainAfterItsPause() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await Self.stateless(mcp, transport: { $0.maxResumeAttempts = 0 })
        let (changes, seen) = AsyncStream<MCPChange>.makeStream()
        let listening = Task {
            for try await change in client.listen(MCPSubscriptionFilter(toolsListChanged: true)) { seen.yield(change) }
        }
        /// One listen stream: its acknowledgement, `change` when given, then the server ends it.
        func serve(change: Bool) async throws {
            let listen = try await mcp.next()
            #expect(listen.rpcMethod == "subscriptions/listen" && listen.message?["params"]?["notifications"] == ["toolsListChanged": true])
            let meta: JSONValue = ["io.modelcontextprotocol/subscriptionId": listen.id ?? .null]
            listen.openStream()
            listen.event(["jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": ["_meta": meta, "notifications": ["toolsListChanged": true]]])
            if change { listen.event(["jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": ["_meta": meta]]) }
            listen.server.finish()
        }
        for (change, pause) in [(false, Duration.milliseconds(200)), (true, .milliseconds(100))] {
            try await serve(change: change)
            let count = mcp.requestCount
            await mcp.loop.waitForTimer(dueAt: mcp.loop.now.advanced(by: pause))
            mcp.loop.advanceTime(by: pause - .milliseconds(1))
            #expect(mcp.requestCount == count, "not before the \(pause) pause")
            mcp.loop.advanceTime(by: .milliseconds(1))
        }
        let third = try await mcp.next()
        #expect(third.rpcMethod == "subscriptions/listen")
        let honored = MCPSubscriptionFilter(toolsListChanged: true)
        var received: [MCPChange] = []
        for await change in changes {
            received.append(change)
            if received.count == 3 { break }
        }
        #expect(received == [.listening(honored: honored), .listening(honored: honored), .toolsListChanged])
        listening.cancel()
        await client.close()
    }
}
#endif
