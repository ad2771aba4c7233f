import Foundation
@testable import RealtimeMCP
import RealtimeTestSupport
import Testing

/// The HTTP+SSE transport of 2024-11-05 against the Python `mcp` SDK's `sse_app` (GET /sse,
/// then POSTs to the endpoint its stream announces), reached by negotiation (its POST /sse
/// answers 405) and when fixed.
@Suite("MCP over HTTP+SSE (2024-11-05)", .timeLimit(.minutes(3)), .serialized)
struct MCPLegacySSETests {
    @Test("negotiation falls back to the HTTP+SSE transport; tools, progress, resources, prompts, errors")
    func negotiatedFallback() async throws {
        let peer = try await MCPPeer.sdk(["--legacy-sse"])
        defer { peer.peer.terminate() }
        let client = MCPPythonSDKTests.client(peer.url("/sse"), revision: .negotiate)
        let info = try await client.connect()
        #expect(!info.revision.isStateless)
        let endpoint = try #require(await client.transport.legacyEndpoint)
        #expect(endpoint.absoluteString.contains("/messages/?session_id="), "\(endpoint)")
        #expect(endpoint.port == peer.peer.port)
        try await MCPPythonSDKTests.exercise(client)
        await client.close()
        await peer.stop()
    }

    @Test("revision 2024-11-05 fixed: the stream first, initialize with that revision")
    func fixedRevision() async throws {
        let peer = try await MCPPeer.sdk(["--legacy-sse"])
        defer { peer.peer.terminate() }
        let client = MCPPythonSDKTests.client(peer.url("/sse"), revision: .fixed(.v2024_11_05))
        let info = try await client.connect()
        #expect(info.revision == .v2024_11_05)
        #expect(try await client.callTool("echo", arguments: ["text": "old"]).text == "old")
        await client.close()
        await peer.stop()
    }
}

/// The endpoint an HTTP+SSE stream announces is kept to the stream's origin: the request
/// headers, credentials included, go to it.
@Suite("MCP HTTP+SSE endpoint")
struct MCPLegacyEndpointTests {
    @Test("relative and same-origin endpoints are taken; another origin or another event is refused")
    func endpoints() throws {
        let transport = MCPStreamableHTTPTransport(url: URL(string: "https://mcp.example.com:8443/sse")!)
        func endpoint(_ data: String, type: String = "endpoint") -> Result<URL, MCPError> {
            transport.legacyEndpoint(from: .sse(type: type, data: data, id: ""))
        }
        #expect(try endpoint("/messages/?session_id=1").get().absoluteString == "https://mcp.example.com:8443/messages/?session_id=1")
        #expect(try endpoint("https://mcp.example.com:8443/m").get().absoluteString == "https://mcp.example.com:8443/m")
        for refused in [endpoint("https://evil.example:8443/m"), endpoint("http://mcp.example.com:8443/m"),
                        endpoint("https://mcp.example.com/m"), endpoint("/m", type: "message")] {
            guard case .failure(let error) = refused else { Issue.record("accepted: \(refused)"); continue }
            #expect(error.code == .invalidResponse)
        }
    }
}
