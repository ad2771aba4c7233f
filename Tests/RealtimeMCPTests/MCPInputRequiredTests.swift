import Foundation
import RealtimeMCP
import RealtimeTestSupport
import Synchronization
import RealtimeCore
import Testing

/// The messages the elicitation handler was shown.
final class Messages: Sendable {
    private let values = LockedValue<[String]>([])
    func append(_ message: String) { values.withLock { $0.append(message) } }
    var all: [String] { values.withLock { $0 } }
}

/// 2026-07-28 multi-round trips against the Python `mcp` SDK: a tool that answers
/// `input_required` twice (an elicitation, then the roots) before its result.
@Suite("MCP input_required", .timeLimit(.minutes(3)), .serialized)
struct MCPInputRequiredTests {
    static func client(_ peer: MCPPeer, maxInputRounds: Int = 8) async throws -> MCPClient {
        var c = MCPClient.Configuration()
        c.revision = .negotiate
        c.requestTimeout = .seconds(30)
        c.maxInputRounds = maxInputRounds
        let client = MCPClient(url: peer.url(), configuration: c)
        #expect(try await client.connect().revision == .v2026_07_28)
        return client
    }

    @Test("each round's input requests are answered by the handlers, the state goes back untouched")
    func roundsAreAnswered() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = try await Self.client(peer)
        let asked = Messages()
        await client.setRequestHandler("elicitation/create") { params in
            asked.append(params?["message"]?.stringValue ?? "")
            return ["action": "accept", "content": ["ok": true]]
        }
        await client.setRequestHandler("roots/list") { _ in
            ["roots": [["uri": "file:///a", "name": "a"], ["uri": "file:///b", "name": "b"]]]
        }
        let result = try await client.callTool("confirm", arguments: ["action": "deploy"])
        #expect(result.text == "deploy: accept ok=True roots=2 state=round-2")
        #expect(asked.all == ["Confirm deploy?"])
        await client.close()
        await peer.stop()
    }

    @Test("no handler, or more rounds than allowed, fails the call")
    func unansweredRoundsFail() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = try await Self.client(peer)
        do {
            _ = try await client.callTool("confirm", arguments: ["action": "deploy"])
            Issue.record("the call succeeded without an elicitation handler")
        } catch let error as MCPError {
            #expect(error.code == .rpc)
            #expect(error.rpcCode == -32601)
        }
        await client.close()
        let limited = try await Self.client(peer, maxInputRounds: 1)
        await limited.setRequestHandler("elicitation/create") { _ in ["action": "decline"] }
        do {
            _ = try await limited.callTool("confirm", arguments: ["action": "deploy"])
            Issue.record("a second round passed maxInputRounds 1")
        } catch let error as MCPError {
            #expect(error.code == .invalidResponse)
        }
        await limited.close()
        await peer.stop()
    }
}

/// 2026-07-28 custom headers against the Python `mcp` SDK, which refuses a `tools/call`
/// whose `x-mcp-header` arguments are not mirrored (or differ) in `Mcp-Param-*` headers.
@Suite("MCP Mcp-Param headers", .timeLimit(.minutes(3)), .serialized)
struct MCPParameterHeaderTests {
    @Test("arguments marked x-mcp-header go as Mcp-Param headers, non-ASCII ones base64-wrapped")
    func parameterHeaders() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = try await MCPInputRequiredTests.client(peer)
        // No tools/list before: the client reads it before its first call.
        #expect(try await client.callTool("regional", arguments: ["region": "Zürich", "count": 3]).text == "Zürich 3")
        #expect(try await client.callTool("regional", arguments: ["region": "eu-west", "count": 12]).text == "eu-west 12")
        await client.close()
        // What the client read: the schema marks both (without the headers the server
        // answers -32020, "Mcp-Param-Count header is missing").
        var c = MCPClient.Configuration()
        c.revision = .negotiate
        let bare = MCPClient(url: peer.url(), configuration: c)
        try await bare.connect()
        let tools = try await bare.allTools()
        let regional = try #require(tools.first { $0.name == "regional" })
        #expect(regional.inputSchema?["properties"]?["region"]?["x-mcp-header"] == "Region")
        await bare.close()
        await peer.stop()
    }
}

/// W3C trace context in `_meta`, read by the Python SDK's OpenTelemetry middleware.
@Suite("MCP trace context", .timeLimit(.minutes(3)), .serialized)
struct MCPTraceContextTests {
    @Test("a request's _meta carries the traceparent, which parents the server's span", arguments: ["2025-11-25", "2026-07-28"])
    func traceparent(revision: String) async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        var c = MCPClient.Configuration()
        c.revision = .fixed(MCPRevision(revision))
        c.traceContext = { ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "vendor=1") }
        let client = MCPClient(url: peer.url(), configuration: c)
        try await client.connect()
        #expect(try await client.callTool("trace_id").text == "0af7651916cd43dd8448eb211c80319c")
        await client.close()
        // A malformed traceparent is not sent: the server's span has no parent of ours.
        c.traceContext = { ("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", nil) }
        let malformed = MCPClient(url: peer.url(), configuration: c)
        try await malformed.connect()
        #expect(try await malformed.callTool("trace_id").text != "0af7651916cd43dd8448eb211c80319c")
        await malformed.close()
        await peer.stop()
    }
}

/// The re-issue rule against the Python SDK on 2026-07-28, where a closed stream cannot be
/// resumed: a read-only tool whose answer was lost runs again, another does not.
@Suite("MCP re-issue on 2026-07-28", .timeLimit(.minutes(3)), .serialized)
struct MCPReissueSDKTests {
    @Test("a lost answer: sent again for a read-only tool, stream_ended for another")
    func reissue() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let client = try await MCPInputRequiredTests.client(peer)
        // With a progress handler the answer is an SSE stream, which the server's wrapper
        // ends after the progress event.
        let log = ProgressLog()
        #expect(try await client.callTool("flaky_read") { log.append($0) }.text == "read 2")
        do {
            _ = try await client.callTool("flaky_write") { log.append($0) }
            Issue.record("a call whose stream closed without an answer succeeded")
        } catch let error as MCPError {
            #expect(error.code == .streamEnded)
        }
        #expect(try await peer.record("/runs") == ["flaky_read": 2, "flaky_write": 1])
        await client.close()
        await peer.stop()
    }
}
