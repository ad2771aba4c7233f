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

    /// A request that times out closes its stream at once, whether or not the server ever
    /// answers the `notifications/cancelled` that tells it: nothing more of the answer is read.
    @Test func aTimedOutRequestsStreamClosesEvenWhenTheCancellationIsNeverAnswered() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, client: { $0.requestTimeout = .seconds(30) })
        let start = mcp.loop.now
        let call = Task { try await client.callTool("stuck") }
        let request = try await mcp.next()
        request.openStream()
        await mcp.loop.waitForTimer(dueAt: start.advanced(by: .seconds(30)))
        mcp.loop.advanceTime(by: .seconds(30))
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .timeout)
        let cancelled = try await mcp.next()
        #expect(cancelled.rpcMethod == "notifications/cancelled")
        cancelled.server.receiveRequest()  // and never answered
        await mcp.waitUntilEnded(request)
        cancelled.accepted()
        try await EmbeddedMCPClientTests.close(client, mcp)
    }
}
#endif
