#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeMCP
import RealtimeTesting
import RealtimeTestSupport
import Testing

/// Faults of the server and of the caller on the embedded stack (``EmbeddedMCPServer``): what
/// the client sends is taken in order, so "nothing more was sent" is what the next request is.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedMCPFaultTests {
    /// A call whose task is cancelled before it starts is never POSTed, and the server is not
    /// told to cancel it: a cancellation may only name a request that was issued (MCP,
    /// Cancellation). The next request the server sees is the next call.
    @Test func aCallCancelledBeforeItIsSentSendsNothing() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.callTool("never")
        }
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .cancelled)
        let ping = Task { try await client.ping() }
        let next = try await mcp.next()
        #expect(next.rpcMethod == "ping", "nothing about the cancelled call: \(String(describing: next.message))")
        next.json(next.result([:]))
        try await ping.value
        try await EmbeddedMCPClientTests.close(client, mcp)
    }
}
#endif
