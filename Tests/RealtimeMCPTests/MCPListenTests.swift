import Foundation
import RealtimeMCP
import RealtimeTestSupport
import Testing

/// `MCPClient.listen` against the Python `mcp` SDK's server: `subscriptions/listen` on
/// 2026-07-28 (the SDK's listen handler and subscription bus), the session's notifications on
/// 2025-11-25; and against `mcp_hostile.py`, whose listen streams are cut and ended.
@Suite("MCP listen", .timeLimit(.minutes(3)), .serialized)
struct MCPListenTests {
    static let filter = MCPSubscriptionFilter(toolsListChanged: true, resourceURIs: ["res://greeting"])

    /// The next `count` changes (the consumer keeps iterating the same sequence).
    static func next(
        _ count: Int, of iterator: inout AsyncThrowingStream<MCPChange, any Error>.AsyncIterator
    ) async throws -> [MCPChange] {
        var changes: [MCPChange] = []
        while changes.count < count, let change = try await iterator.next() { changes.append(change) }
        return changes
    }

    @Test("2026-07-28: the acknowledgement, then only the changes the filter asked for")
    func listenOn2026() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = MCPPythonSDKTests.client(peer.url(), revision: .negotiate)
        #expect(try await client.connect().revision == .v2026_07_28)
        var changes = client.listen(Self.filter).makeAsyncIterator()
        #expect(try await Self.next(1, of: &changes) == [.listening(honored: Self.filter)])
        // Prompts and another URI were not asked for: the server sends them to no one here.
        for (kind, uri) in [("prompts", ""), ("updated", "res://other"), ("tools", ""), ("updated", "res://greeting")] {
            #expect(try await client.callTool("publish", arguments: ["kind": .string(kind), "uri": .string(uri)]).text == "published")
        }
        #expect(try await Self.next(2, of: &changes) == [.toolsListChanged, .resourceUpdated(uri: "res://greeting")])
        // close() ends the sequence; a listen on a closed client ends at once.
        await client.close()
        #expect(try await changes.next() == nil)
        var late = client.listen(Self.filter).makeAsyncIterator()
        await #expect(throws: MCPError.self) { _ = try await late.next() }
        try await peer.expectNoRepeatedPOST()
        await peer.stop()
    }

    @Test("2025-11-25: the same API over the session's notifications and resources/subscribe")
    func listenOnSession() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = MCPPythonSDKTests.client(peer.url(), revision: .fixed(.v2025_11_25))
        try await client.connect()
        var changes = client.listen(Self.filter).makeAsyncIterator()
        #expect(try await Self.next(1, of: &changes) == [.listening(honored: Self.filter)])
        #expect(try await client.callTool("notify_resource").text == "sent")
        #expect(try await client.callTool("list_changed").text == "sent")
        #expect(try await Self.next(2, of: &changes) == [.resourceUpdated(uri: "res://greeting"), .toolsListChanged])
        await client.close()
        await peer.stop()
    }

    /// A cut stream and a stream the server ended are listened to again, each new stream
    /// starting with `listening`; kinds the server did not honor are not passed on; a
    /// JSON-RPC error ends the sequence with it.
    @Test("a cut or ended listen stream is listened to again; a JSON-RPC error ends the sequence")
    func relistens() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        var c = MCPClient.Configuration()
        c.revision = .negotiate
        let client = MCPClient(url: peer.url("/listen/mcp"), configuration: c)
        #expect(try await client.connect().revision == .v2026_07_28)
        let asked = MCPSubscriptionFilter(toolsListChanged: true, promptsListChanged: true)
        let honored = MCPSubscriptionFilter(toolsListChanged: true)
        var changes: [MCPChange] = []
        do {
            for try await change in client.listen(asked) { changes.append(change) }
            Issue.record("the sequence ended without the server's error")
        } catch let error as MCPError {
            #expect(error.code == .rpc)
            #expect(error.rpcCode == -32601)
        }
        #expect(changes == [.listening(honored: honored), .toolsListChanged, .listening(honored: honored), .toolsListChanged])
        #expect(try await peer.record("/listen/listens")["count"] == 3)
        await client.close()
        try await peer.expectNoRepeatedPOST("/listen/posts")
        await peer.stop()
    }
}

/// List results the server lets the client reuse (`ttlMs`, `cacheScope`).
@Suite("MCP list caching", .timeLimit(.minutes(2)), .serialized)
struct MCPListCacheTests {
    @Test("allTools() reuses a list for its ttlMs until a list change is heard")
    func toolsAreReusedUntilAChange() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let client = MCPHostileServerTests.client(peer, "cached")
        try await client.connect()
        let page = try await client.listTools()
        #expect(page.ttl == .seconds(60))
        #expect(page.cacheScope == "private")
        #expect(try await client.allTools().map(\.name) == ["x"])
        #expect(try await client.allTools().map(\.name) == ["x"])
        #expect(try await peer.record("/cached/lists")["count"] == 2, "listTools, then one allTools reused")
        // The call's stream says the list changed: the next allTools asks again.
        #expect(try await client.callTool("x").text == "ok")
        _ = try await client.allTools()
        #expect(try await peer.record("/cached/lists")["count"] == 3)
        await client.close()
        await peer.stop()
    }
}
