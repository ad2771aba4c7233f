import Foundation
import RealtimeMCP
import RealtimeTestSupport
import Testing

/// The transport alone, as swift-sdk drives it: raw JSON-RPC in through `send`, out of
/// `receive`.
@Suite("MCP transport, raw messages", .timeLimit(.minutes(3)), .serialized)
struct MCPTransportRawTests {
    @Test("a request whose stream ends before its response gets the transport's -32000 response naming stream_ended")
    func streamEndedResponse() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let transport = MCPStreamableHTTPTransport(url: peer.url("/early/mcp"))
        try await transport.connect()
        var messages = await transport.receive().makeAsyncIterator()
        let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
        try await transport.send(Data(initialize.utf8))
        let initialized = try MCPValue(json: try #require(try await messages.next()))
        #expect(initialized["result"]?["protocolVersion"] == "2025-11-25")
        #expect(await transport.sessionID == "s1")
        #expect(await transport.revision == .v2025_11_25)
        try await transport.send(Data(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8))
        #expect(await transport.hasServerStream == false)  // the hostile server answers GET with 405
        try await transport.send(Data(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}"#.utf8))
        var response: MCPValue?
        while let data = try await messages.next() {
            let value = try MCPValue(json: data)
            if value["id"] == 2 {
                response = value
                break
            }
        }
        #expect(response?["error"]?["code"] == .number(Double(MCPStreamableHTTPTransport.transportErrorCode)))
        #expect(response?["error"]?["data"]?["transport"] == "stream_ended")
        #expect(await transport.failure(for: 2)?.code == .streamEnded)
        await transport.disconnect()
        try await peer.expectNoRepeatedPOST("/early/posts")
        await peer.stop()
    }
}
