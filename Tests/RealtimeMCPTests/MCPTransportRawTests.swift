import Foundation
@testable import RealtimeMCP
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import Testing

/// The transport alone, as swift-sdk drives it: raw JSON-RPC in through `send`, out of
/// `receive`.
@Suite("MCP transport, raw messages", .timeLimit(.minutes(3)), .serialized)
struct MCPTransportRawTests {
    /// A transport on the hostile peer's `/<name>/mcp`, its session initialized on 2025-11-25
    /// by raw messages: the transport, the answer to `initialize`, and what it receives next.
    static func initialize(
        _ peer: MCPPeer, _ name: String
    ) async throws -> (MCPStreamableHTTPTransport, JSONValue, AsyncThrowingStream<Data, any Error>.AsyncIterator) {
        let transport = MCPStreamableHTTPTransport(url: peer.url("/\(name)/mcp"))
        try await transport.connect()
        var messages = await transport.receive().makeAsyncIterator()
        let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
        try await transport.send(Data(initialize.utf8))
        let initialized = try JSONValue(json: try #require(try await messages.next()))
        try await transport.send(Data(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8))
        return (transport, initialized, messages)
    }

    @Test("a request whose stream ends before its response gets the transport's -32000 response naming stream_ended")
    func streamEndedResponse() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let (transport, initialized, receiving) = try await Self.initialize(peer, "early")
        var messages = receiving
        #expect(initialized["result"]?["protocolVersion"] == "2025-11-25")
        #expect(await transport.sessionID == "s1")
        #expect(await transport.revision == .v2025_11_25)
        #expect(await transport.hasServerStream == false)  // the hostile server answers GET with 405
        try await transport.send(Data(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}"#.utf8))
        var response: JSONValue?
        while let data = try await messages.next() {
            let value = try JSONValue(json: data)
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

    /// A server that floods a reader that is behind: the transport reads at most the queue's
    /// capacity ahead of it, then stops reading the stream (the pump waits for room), and the
    /// reader still gets every message, in order. With an unbounded queue no pump ever waits
    /// and this test runs into its time limit.
    @Test("a flood to a reader that reads nothing fills the queue to its bound, then waits; every message arrives in order")
    func floodToAReaderThatIsBehindIsBounded() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let (transport, _, receiving) = try await Self.initialize(peer, "progressflood")
        var messages = receiving
        try await transport.send(Data(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":7}}}"#.utf8))
        let queue = await transport.inbound
        await queue.untilAPumpWaits()
        #expect(queue.channel.bufferedCount <= MCPInboundQueue.capacity, "\(queue.channel.bufferedCount) queued")
        var progress: [Double] = []
        var response: JSONValue?
        while response == nil, let data = try await messages.next() {
            let value = try JSONValue(json: data)
            if value["id"] == 2 { response = value } else if let n = value["params"]?["progress"]?.numberValue { progress.append(n) }
        }
        #expect(progress == (0..<5000).map(Double.init), "\(progress.count) progress notifications")
        #expect(response?["result"] != nil)
        await transport.disconnect()
        await peer.stop()
    }
}
