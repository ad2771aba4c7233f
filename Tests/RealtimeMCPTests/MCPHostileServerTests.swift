import Foundation
import RealtimeMCP
import RealtimeTestSupport
import Testing

/// A Streamable HTTP server over real sockets (`Tests/Peers/mcp_hostile.py`) whose answer's
/// head comes after the connect timeout: libcurl's own timeouts must not end it. The other
/// misbehaving servers are played on the embedded stack (`EmbeddedMCPHostileTests`).
@Suite("MCP hostile servers", .timeLimit(.minutes(4)), .serialized)
struct MCPHostileServerTests {
    /// Connects to `/<name>/mcp`, calls a tool and returns its outcome; no request is POSTed
    /// twice.
    static func call(
        _ peer: MCPPeer, _ name: String, configure: (inout MCPClient.Configuration) -> Void = { _ in }
    ) async throws -> Result<MCPToolResult, MCPError> {
        let client = Self.client(peer, name) {
            $0.requestTimeout = .seconds(20)
            configure(&$0)
        }
        try await client.connect()
        let outcome: Result<MCPToolResult, MCPError>
        do {
            outcome = .success(try await client.callTool("t"))
        } catch let error as MCPError {
            outcome = .failure(error)
        }
        await client.close()
        try await peer.expectNoRepeatedPOST("/\(name)/posts")
        return outcome
    }

    /// A client of `/<name>/mcp` speaking 2025-11-25.
    static func client(
        _ peer: MCPPeer, _ name: String, configure: (inout MCPClient.Configuration) -> Void = { _ in }
    ) -> MCPClient {
        var c = MCPClient.Configuration()
        c.revision = .fixed(.v2025_11_25)
        configure(&c)
        return MCPClient(url: peer.url("/\(name)/mcp"), configuration: c)
    }

    @Test("a tool whose answer starts after the connect timeout is bounded by the request timeout instead", arguments: ["late", "latesse"])
    func lateAnswer(_ name: String) async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        // The answer's head comes 3 s after the POST, twice the connect timeout.
        let outcome = try await Self.call(peer, name) { $0.transport.connectTimeout = .milliseconds(1500) }
        #expect((try? outcome.get())?.text == "ok", "\(outcome)")
        await peer.stop()
    }
}
