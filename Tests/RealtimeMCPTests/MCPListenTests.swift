import Foundation
@testable import RealtimeMCP
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

    /// A refused listen (HTTP 403) ends the sequence with the error at once: it is not
    /// listened to again, silently, for ever.
    @Test("a listen the server refuses with 403 ends the sequence with the error")
    func aRefusedListenEndsTheSequence() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        var c = MCPClient.Configuration()
        c.revision = .negotiate
        let client = MCPClient(url: peer.url("/listen403/mcp"), configuration: c)
        #expect(try await client.connect().revision == .v2026_07_28)
        do {
            for try await change in client.listen(MCPSubscriptionFilter(toolsListChanged: true)) {
                Issue.record("a change from a refused listen: \(change)")
            }
            Issue.record("the sequence ended without the refusal")
        } catch let error as MCPError {
            #expect(error.status == 403, "\(error)")
        }
        #expect(try await peer.record("/listen403/listens")["listen403"] == 1, "not listened to again")
        await client.close()
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

/// A listen stream that floods: the reader that is behind keeps each distinct change once.
@Suite("MCP listen flood", .timeLimit(.minutes(2)))
struct MCPListenFloodTests {
    @Test("a flood of level triggers is coalesced; the change buried under it is not dropped")
    func floodIsCoalesced() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        var c = MCPClient.Configuration()
        c.revision = .negotiate
        let client = MCPClient(url: peer.url("/listenflood/mcp"), configuration: c)
        try await client.connect()
        let filter = MCPSubscriptionFilter(toolsListChanged: true, promptsListChanged: true, resourceURIs: ["file:///a", "file:///last"])
        var changes = client.listen(filter).makeAsyncIterator()
        let honored = MCPSubscriptionFilter(toolsListChanged: true, resourceURIs: ["file:///a", "file:///last"])
        #expect(try await changes.next() == .listening(honored: honored))
        // The reader falls behind: it reads again only once the server wrote the whole flood.
        #expect(try await peer.record("/listenflood/flood")["written"] == .bool(true))
        var seen: [MCPChange] = []
        while let change = try await changes.next() {
            seen.append(change)
            if change == .resourceUpdated(uri: "file:///last") { break }
        }
        // Whatever the reader's pace: the first change is there, prompts (not honored) are
        // not, and no change follows itself (one waiting is never queued twice).
        #expect(seen.first == .resourceUpdated(uri: "file:///a"), "\(seen.prefix(5))")
        #expect(seen.contains(.toolsListChanged))
        #expect(Set(seen).isSubset(of: [.resourceUpdated(uri: "file:///a"), .toolsListChanged, .resourceUpdated(uri: "file:///last")]))
        #expect(seen.count <= 20_002, "\(seen.count) changes")
        print("MCP listen flood: 40000 notifications (20000 honored) reached the reader as \(seen.count) changes")
        await client.close()
        await peer.stop()
    }
}

/// ``MCPChangeBuffer``: each change waits once; a waiting reader gets the next at once.
@Suite("MCP change buffer")
struct MCPChangeBufferTests {
    @Test("a change already waiting is not queued again; once read, it queues again")
    func coalesces() {
        var b = MCPChangeBuffer()
        let r1 = b.yield(.toolsListChanged)
        #expect(r1 == .none)
        let r2 = b.yield(.resourceUpdated(uri: "a"))
        #expect(r2 == .none)
        var queued = 0
        for _ in 0..<1000 where b.yield(.toolsListChanged) != .none { queued += 1 }
        #expect(queued == 0)
        #expect(b.coalesced == 1000)
        guard case .change(.toolsListChanged) = b.next() else { Issue.record("not tools first"); return }
        let r3 = b.yield(.toolsListChanged)
        #expect(r3 == .none)
        guard case .change(.resourceUpdated(uri: "a")) = b.next() else { Issue.record("not a second"); return }
        guard case .change(.toolsListChanged) = b.next() else { Issue.record("tools not queued again"); return }
        guard case .wait = b.next() else { Issue.record("not waiting"); return }
        let r4 = b.yield(.promptsListChanged)
        #expect(r4 == .resume(.promptsListChanged), "a waiting reader gets it directly")
    }

    @Test("the end comes after every waiting change; a reader that leaves stops waiting")
    func finishes() {
        var b = MCPChangeBuffer()
        _ = b.yield(.toolsListChanged)
        let r5 = b.finish(MCPError(.notConnected))
        #expect(r5 == false, "no reader waits")
        let r6 = b.yield(.promptsListChanged)
        #expect(r6 == .none)
        guard case .change(.toolsListChanged) = b.next() else { Issue.record("the change before the end was lost"); return }
        guard case .finished(let failure?) = b.next(), (failure as? MCPError)?.code == .notConnected else {
            Issue.record("no end"); return
        }
        var waiting = MCPChangeBuffer()
        guard case .wait = waiting.next() else { Issue.record("not waiting"); return }
        let r7 = waiting.readerLeft()
        #expect(r7)
        let r8 = waiting.yield(.toolsListChanged)
        #expect(r8 == .none, "queued, not handed to a reader that left")
    }
}
