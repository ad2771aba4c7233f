#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeMCP
import RealtimeTesting
import RealtimeTestSupport
import Testing

/// Documented promises of ``MCPClient``'s features (server requests, notifications, lists,
/// listen) on the embedded stack (``EmbeddedMCPServer``).
@Suite(.timeLimit(.minutes(1))) struct EmbeddedMCPFeatureTests {
    typealias Request = EmbeddedMCPServer.Request

    /// Sends the server request `method` with `id` on `post`'s stream and returns the client's
    /// answer, accepted.
    static func ask(_ mcp: EmbeddedMCPServer, on post: Request, id: String, _ method: String) async throws -> JSONValue? {
        post.event(["jsonrpc": "2.0", "id": .string(id), "method": .string(method), "params": [:]])
        let answer = try await mcp.next()
        #expect(answer.id == .string(id))
        answer.accepted()
        return answer.message
    }

    /// `ping` is answered with an empty result without a handler; a handler's result is the
    /// answer; a handler that throws an `rpc` error answers with that code and message.
    @Test func serverRequestsAreAnsweredByTheirHandlersAndPingWithoutOne() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        await client.setRequestHandler("roots/list") { _ in ["roots": [["uri": "file:///work"]]] }
        await client.setRequestHandler("elicitation/create") { _ in throw MCPError.rpc(code: -32042, message: "declined by policy") }
        let call = Task { try await client.callTool("t") }
        let post = try await mcp.next()
        post.openStream()
        #expect(try await Self.ask(mcp, on: post, id: "p", "ping")?["result"] == [:])
        #expect(try await Self.ask(mcp, on: post, id: "r", "roots/list")?["result"] == ["roots": [["uri": "file:///work"]]])
        let refused = try await Self.ask(mcp, on: post, id: "e", "elicitation/create")
        #expect(refused?["error"]?["code"] == -32042 && refused?["error"]?["message"] == "declined by policy")
        post.event(post.result(.toolText("ok")))
        #expect(try await call.value.text == "ok")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// `maxConcurrentServerRequests` is at least 1: with 0, one handler runs and a second
    /// request meanwhile is refused with -32000.
    @Test func aServerRequestLimitOfZeroStillRunsOneHandler() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, client: { $0.maxConcurrentServerRequests = 0 })
        let (released, release) = AsyncStream<Void>.makeStream()
        await client.setRequestHandler("sampling/createMessage") { _ in
            for await _ in released { break }
            return ["role": "assistant"]
        }
        let call = Task { try await client.callTool("t") }
        let post = try await mcp.next()
        post.openStream()
        post.event(["jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": [:]])
        #expect(try await Self.ask(mcp, on: post, id: "s2", "sampling/createMessage")?["error"]?["code"] == -32000)
        release.finish()
        let answer = try await mcp.next()
        #expect(answer.id == "s1" && answer.message?["result"] == ["role": "assistant"])
        answer.accepted()
        post.event(post.result(.toolText("ok")))
        #expect(try await call.value.text == "ok")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// On 2026-07-28 a handler that throws while answering an `input_required` round fails the
    /// call with its error, and the call is not sent again.
    @Test func aHandlerErrorInAnInputRoundFailsTheCall() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.stateless(mcp)
        await client.setRequestHandler("elicitation/create") { _ in throw MCPError.rpc(code: -1, message: "dialog closed") }
        let call = Task { try await client.callTool("deploy") }
        let listing = try await mcp.next()
        listing.json(listing.result(["tools": [["name": "deploy", "inputSchema": ["type": "object"]]]]))
        let request = try await mcp.next()
        let ask: JSONValue = ["method": "elicitation/create", "params": ["message": "sure?", "requestedSchema": ["type": "object"]]]
        request.json(request.result(["resultType": "input_required", "inputRequests": ["confirm": ask], "requestState": "s"]))
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .rpc && error?.rpcCode == -1 && error?.message == "dialog closed")
        await client.close()
        #expect(mcp.requestCount == 3, "discover, the list, the call once")
    }

    /// `notifications` keeps the newest `notificationBuffer` notifications for a slow reader.
    @Test func aSlowNotificationReaderGetsTheNewestNotifications() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, client: { $0.notificationBuffer = 2 })
        let call = Task { try await client.callTool("t") }
        let post = try await mcp.next()
        post.openStream()
        for n in 1...3 {
            post.event(["jsonrpc": "2.0", "method": "notifications/message", "params": ["level": "info", "data": .number(Double(n))]])
        }
        post.event(post.result(.toolText("ok")))
        _ = try await call.value
        var notifications = client.notifications.makeAsyncIterator()
        #expect(await notifications.next()?.params?["data"] == 2)
        #expect(await notifications.next()?.params?["data"] == 3)
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A connected client calling tool `t` with a progress handler (its progress values in
    /// `seen`), the call's POST answered with an open event stream.
    static func callWithProgress(_ mcp: EmbeddedMCPServer) async throws
        -> (MCPClient, LockedValue<[Double]>, Task<MCPToolResult, any Error>, EmbeddedMCPServer.Request)
    {
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let seen = LockedValue<[Double]>([])
        let call = Task { try await client.callTool("t") { progress in seen.withLock { $0.append(progress.progress) } } }
        let post = try await mcp.next()
        post.openStream()
        return (client, seen, call, post)
    }

    /// Progress goes to the call's handler and also comes out of `notifications`.
    @Test func progressAlsoComesOutOfNotifications() async throws {
        let mcp = EmbeddedMCPServer()
        let (client, seen, call, post) = try await Self.callWithProgress(mcp)
        let token = post.id ?? .null
        post.event(["jsonrpc": "2.0", "method": "notifications/progress", "params": ["progressToken": token, "progress": 1, "message": "one"]])
        post.event(post.result(.toolText("ok")))
        _ = try await call.value
        #expect(seen.withLock { $0 } == [1])
        var notifications = client.notifications.makeAsyncIterator()
        let progress = await notifications.next()
        #expect(progress?.method == "notifications/progress" && progress?.params?["progressToken"] == token)
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// `allTools()` follows `nextCursor` page by page, sending each cursor back, and returns
    /// every tool in order.
    @Test func allToolsFollowsEachCursorToTheLastPage() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let all = Task { try await client.allTools() }
        for (n, cursor) in [(0, nil), (1, "c1"), (2, "c2")] as [(Int, String?)] {
            let request = try await mcp.next()
            #expect(request.rpcMethod == "tools/list")
            #expect(request.message?["params"]?["cursor"]?.stringValue == cursor)
            var page: [String: JSONValue] = ["tools": [["name": .string("t\(n)"), "inputSchema": ["type": "object"]]]]
            if n < 2 { page["nextCursor"] = .string("c\(n + 1)") }
            request.json(request.result(.object(page)))
        }
        #expect(try await all.value.map(\.name) == ["t0", "t1", "t2"])
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// Answers one `allTools()` of two pages with these `ttlMs` (nil: none).
    static func answerTwoPages(_ mcp: EmbeddedMCPServer, ttls: [Double?]) async throws {
        for (n, ttl) in ttls.enumerated() {
            let request = try await mcp.next()
            var page: [String: JSONValue] = ["tools": [["name": .string("t\(n)"), "inputSchema": ["type": "object"]]]]
            if n == 0 { page["nextCursor"] = "c1" }
            if let ttl { page["ttlMs"] = .number(ttl) }
            request.json(request.result(.object(page)))
        }
    }

    /// A list of pages is reused for the shortest `ttlMs` among them, then asked for again.
    @Test func allToolsReusesItsListForTheShortestTTLOfItsPages() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.stateless(mcp)
        let first = Task { try await client.allTools() }
        try await Self.answerTwoPages(mcp, ttls: [60_000, 10_000])
        _ = try await first.value
        mcp.loop.advanceTime(by: .seconds(10) - .milliseconds(1))
        #expect(try await client.allTools().map(\.name) == ["t0", "t1"])
        #expect(mcp.requestCount == 3, "reused")
        mcp.loop.advanceTime(by: .milliseconds(1))
        let second = Task { try await client.allTools() }
        try await Self.answerTwoPages(mcp, ttls: [60_000, 10_000])
        _ = try await second.value
        #expect(mcp.requestCount == 5, "asked again after the shortest ttl")
    }

    /// A list with a page that gave no `ttlMs` is not reused.
    @Test func allToolsDoesNotReuseAListWithAPageWithoutTTL() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.stateless(mcp)
        let first = Task { try await client.allTools() }
        try await Self.answerTwoPages(mcp, ttls: [60_000, nil])
        _ = try await first.value
        let second = Task { try await client.allTools() }
        try await Self.answerTwoPages(mcp, ttls: [60_000, nil])
        #expect(try await second.value.map(\.name) == ["t0", "t1"])
        #expect(mcp.requestCount == 5, "asked again at once")
    }

    /// A tool the last `tools/list` no longer marks idempotent is not re-issued when its
    /// answer is lost: the call fails with `stream_ended`, sent once.
    @Test func aToolNoLongerMarkedIdempotentIsNotReissued() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, transport: { $0.maxResumeAttempts = 0 })
        for annotations in [["idempotentHint": true], [:]] as [JSONValue] {
            let listing = Task { try await client.listTools() }
            let list = try await mcp.next()
            list.json(list.result(["tools": [["name": "set", "inputSchema": ["type": "object"], "annotations": annotations]]]))
            _ = try await listing.value
        }
        let call = Task { try await client.callTool("set") }
        let post = try await mcp.next()
        post.openStream()
        post.server.reset()
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .streamEnded)
        #expect(mcp.loop.pendingTimerCount == 0, "no reissue armed")
        #expect(mcp.requestCount == 6, "two lists, the call once")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// Ending the loop over a 2026-07-28 listen closes its stream (the listen is cancelled
    /// on the server), and it is not listened to again.
    @Test func endingAListenLoopClosesItsStream() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.stateless(mcp)
        let listening = Task {
            for try await change in client.listen(MCPSubscriptionFilter(toolsListChanged: true)) {
                #expect(change == .listening(honored: MCPSubscriptionFilter(toolsListChanged: true)))
                break
            }
        }
        let listen = try await mcp.next()
        #expect(listen.rpcMethod == "subscriptions/listen")
        listen.openStream()
        let meta: JSONValue = ["io.modelcontextprotocol/subscriptionId": listen.id ?? .null]
        listen.event(["jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": ["_meta": meta, "notifications": ["toolsListChanged": true]]])
        try await listening.value
        await mcp.waitUntilEnded(listen)
        #expect(mcp.loop.pendingTimerCount == 0, "no listen again")
        await client.close()
        #expect(mcp.requestCount == 2)
    }

    /// On a session revision, `listen` sends `resources/subscribe` for each URI only when the
    /// server's capabilities offer subscriptions, then starts with `listening`.
    @Test(arguments: [true, false]) func aSessionListenSubscribesOnlyWhenTheServerOffersIt(offered: Bool) async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client()
        let connecting = Task { try await client.connect() }
        try await mcp.answerHandshake(session: "s1", capabilities: ["resources": ["subscribe": .bool(offered)]])
        _ = try await connecting.value
        let filter = MCPSubscriptionFilter(resourceURIs: ["file:///notes.md"])
        var changes = client.listen(filter).makeAsyncIterator()
        if offered {
            let subscribe = try await mcp.next()
            #expect(subscribe.rpcMethod == "resources/subscribe" && subscribe.message?["params"]?["uri"] == "file:///notes.md")
            subscribe.json(subscribe.result([:]))
        }
        #expect(try await changes.next() == .listening(honored: filter))
        #expect(mcp.requestCount == (offered ? 4 : 3))
        try await EmbeddedMCPClientTests.close(client, mcp)
    }
}
#endif
