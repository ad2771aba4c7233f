import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RealtimeMCP
import RealtimeTestSupport
import Testing

/// The typed client and the transport against the Python `mcp` SDK's Streamable HTTP server,
/// in each of its modes.
@Suite("MCP against the Python SDK", .timeLimit(.minutes(5)), .serialized)
struct MCPPythonSDKTests {
    static func client(_ url: URL, revision: MCPClient.RevisionChoice) -> MCPClient {
        var c = MCPClient.Configuration()
        c.revision = revision
        c.requestTimeout = .seconds(30)
        return MCPClient(url: url, configuration: c)
    }

    /// Lists, calls with progress, reads a resource and gets a prompt.
    static func exercise(_ client: MCPClient) async throws {
        let tools = try await client.allTools()
        #expect(tools.map(\.name).contains("echo"))
        #expect(try await client.callTool("echo", arguments: ["text": "héllo"]).text == "héllo")
        let log = ProgressLog()
        let result = try await client.callTool("progress", arguments: ["steps": 3, "delay": 0.01]) { log.append($0) }
        #expect(result.text == "done 3")
        #expect(log.all == [1, 2, 3])
        let contents = try await client.readResource("res://greeting")
        #expect(contents.first?["text"]?.stringValue == "hello")
        let prompt = try await client.getPrompt("greet", arguments: ["name": "Ada"])
        #expect(prompt.jsonString.contains("Ada"))
        do {
            _ = try await client.request("no/such/method")
            Issue.record("an unknown method succeeded")
        } catch let error as MCPError {
            #expect(error.code == .rpc)
            #expect(error.rpcCode == -32601)
        }
    }

    @Test("SSE answers, 2025-11-25: session id, progress, resources, prompts, typed errors")
    func sseAnswers() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = Self.client(peer.url(), revision: .fixed(.v2025_11_25))
        let info = try await client.connect()
        #expect(info.revision == .v2025_11_25)
        #expect(await client.transport.sessionID != nil)
        try await Self.exercise(client)
        await client.close()
        try await peer.expectNoRepeatedPOST()
        await peer.stop()
    }

    @Test("JSON answers (json_response=True)")
    func jsonAnswers() async throws {
        let peer = try await MCPPeer.sdk(["--json-response"])
        defer { peer.peer.terminate() }
        let client = Self.client(peer.url(), revision: .fixed(.v2025_11_25))
        try await client.connect()
        let tools = try await client.allTools()
        #expect(tools.map(\.name).contains("add"))
        #expect(try await client.callTool("add", arguments: ["a": 2, "b": 3]).text == "5")
        await client.close()
        try await peer.expectNoRepeatedPOST()
        await peer.stop()
    }

    @Test("stateless server (stateless_http=True): no session id, no GET stream")
    func stateless() async throws {
        let peer = try await MCPPeer.sdk(["--stateless"])
        defer { peer.peer.terminate() }
        let client = Self.client(peer.url(), revision: .fixed(.v2025_11_25))
        try await client.connect()
        #expect(await client.transport.sessionID == nil)
        try await Self.exercise(client)
        await client.close()
        try await peer.expectNoRepeatedPOST()
        await peer.stop()
    }

    @Test("event store: a stream the server cuts mid-answer resumes through GET + Last-Event-ID, each message once")
    func resumedCut() async throws {
        let peer = try await MCPPeer.sdk(["--event-store", "--retry-ms", "50"])
        defer { peer.peer.terminate() }
        let client = Self.client(peer.url(), revision: .fixed(.v2025_11_25))
        try await client.connect()
        let log = ProgressLog()
        let result = try await client.callTool("cut", arguments: ["steps": 4, "delay": 0.05]) { log.append($0) }
        #expect(result.text == "done 4")
        #expect(log.all == [1, 2, 3, 4])
        // Steps 2 and 3 were stored while the client was away and came through the replay (step 1
        // too when the cut overtook it on its way out); step 4 came live on the resumed stream.
        let replayed = try await peer.replayedProgress()
        #expect(replayed == [2, 3] || replayed == [1, 2, 3])
        await client.close()
        try await peer.expectNoRepeatedPOST()
        await peer.stop()
    }

    @Test("2026-07-28 negotiated: stateless requests, progress on the request's stream, cancellation")
    func stateless2026() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = Self.client(peer.url(), revision: .negotiate)
        let info = try await client.connect()
        #expect(info.revision == .v2026_07_28)
        #expect(await client.transport.sessionID == nil)
        try await Self.exercise(client)
        try await Self.cancellation(client)
        // 2026-07-28: closing the request's stream is what cancelled the tool on the server.
        try await Self.expectCancelledOnServer(peer)
        await client.close()
        try await peer.expectNoRepeatedPOST()
        await peer.stop()
    }

    @Test("cancelling a call in the handshake generation sends notifications/cancelled; the session goes on")
    func legacyCancellation() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = Self.client(peer.url(), revision: .fixed(.v2025_11_25))
        try await client.connect()
        try await Self.cancellation(client)
        try await Self.expectCancelledOnServer(peer)
        await client.close()
        try await peer.expectNoRepeatedPOST()
        let counts = try await peer.postCounts()
        #expect(counts["notifications/cancelled -"] == 1)
        await peer.stop()
    }

    /// The server saw the 100-step call cancelled (its handler got CancelledError).
    static func expectCancelledOnServer(_ peer: MCPPeer) async throws {
        // The server answers once the cancellation reached the tool's task (at most 10 s).
        let data = try await LoopbackHTTP.get(peer.url("/cancelled?steps=100"))
        #expect(try JSONDecoder().decode([Int].self, from: data).contains(100), "the server never cancelled the call")
    }

    /// Cancels a long call after its first progress notification.
    static func cancellation(_ client: MCPClient) async throws {
        let (firstProgress, signal) = AsyncStream<Void>.makeStream()
        let call = Task {
            try await client.callTool("progress", arguments: ["steps": 100, "delay": 0.1]) { _ in signal.yield() }
        }
        for await _ in firstProgress { break }
        call.cancel()
        do {
            _ = try await call.value
            Issue.record("a cancelled call succeeded")
        } catch let error as MCPError {
            #expect(error.code == .cancelled)
        }
        #expect(try await client.callTool("echo", arguments: ["text": "after"]).text == "after")
    }

    @Test("server-to-client requests: roots/list answered by a handler, ping answered by default")
    func serverRequests() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        var c = MCPClient.Configuration()
        c.revision = .fixed(.v2025_11_25)
        c.capabilities = ["roots": ["listChanged": false]]
        let client = MCPClient(url: peer.url(), configuration: c)
        await client.setRequestHandler("roots/list") { _ in ["roots": [["uri": "file:///work", "name": "work"]]] }
        try await client.connect()
        #expect(try await client.callTool("roots").text == "file:///work")
        #expect(try await client.callTool("ping_client").text == "pong")
        await client.close()
        try await peer.expectNoRepeatedPOST()
        await peer.stop()
    }

    @Test("notifications from the server arrive on the notifications sequence, from a request's stream and the GET stream")
    func notifications() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = Self.client(peer.url(), revision: .fixed(.v2025_11_25))
        try await client.connect()
        #expect(try await client.callTool("notify_resource").text == "sent")
        var updated: MCPNotification?
        for await n in client.notifications where n.method == "notifications/resources/updated" {
            updated = n
            break
        }
        #expect(updated?.params?["uri"]?.stringValue == "res://greeting")
        // Not tied to a request: it comes on the GET stream, open once connect() returned.
        #expect(await client.transport.hasServerStream == true)
        #expect(try await client.callTool("list_changed").text == "sent")
        var listChanged = false
        for await n in client.notifications where n.method == "notifications/tools/list_changed" {
            listChanged = true
            break
        }
        #expect(listChanged)
        await client.close()
        await peer.stop()
    }
}
