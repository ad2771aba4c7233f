import Foundation
import RealtimeMCP
import Testing

/// swift-sdk's `Transport` requirements without its `logger` (swift-log is not a dependency
/// here): what a swift-sdk user's three-line extension builds on.
protocol SwiftSDKTransportShape: Actor {
    func connect() async throws
    func disconnect() async
    func send(_ data: Data) async throws
    func receive() -> AsyncThrowingStream<Data, any Error>
}

extension MCPStreamableHTTPTransport: SwiftSDKTransportShape {}

@Suite("MCP transport shape", .timeLimit(.minutes(1)))
struct MCPTransportShapeTests {
    @Test("the transport conforms to swift-sdk's Transport method requirements")
    func conforms() async throws {
        let transport: any SwiftSDKTransportShape = MCPStreamableHTTPTransport(url: URL(string: "http://127.0.0.1:1/mcp")!)
        try await transport.connect()
        await transport.disconnect()
    }

    @Test("send before connect, a batch and a non-object are typed errors")
    func badInput() async throws {
        let transport = MCPStreamableHTTPTransport(url: URL(string: "http://127.0.0.1:1/mcp")!)
        await #expect(throws: MCPError.self) { try await transport.send(Data("{}".utf8)) }
        try await transport.connect()
        for bad in ["[]", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", "3", "{\"jsonrpc\":\"2.0\"}", "nope"] {
            do {
                try await transport.send(Data(bad.utf8))
                Issue.record("\(bad) was sent")
            } catch let error as MCPError {
                #expect(error.code == .invalidMessage)
            }
        }
        await transport.disconnect()
    }

    @Test("a ws:// URL is refused at connect")
    func scheme() async {
        let transport = MCPStreamableHTTPTransport(url: URL(string: "ws://127.0.0.1:1/mcp")!)
        await #expect(throws: MCPError.self) { try await transport.connect() }
    }
}
