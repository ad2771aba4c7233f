#if os(Linux)
import Foundation
@testable import Realtime
import RealtimeTestServer
import Testing

/// The on-open hook against the in-package server's WebSocket echo: after a server restart,
/// the hook's subscribe reaches the server before the messages queued during the outage.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RealtimeClientOpenHookLoopbackTests {
    @Test func theSubscribeArrivesBeforeQueuedMessagesAfterAServerRestart() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        var c = RealtimeClient.Configuration()
        c.backoff = .immediate
        c.connectTimeout = .seconds(5)
        c.sendPolicy = .queue()
        c.onOpen = { context in try await context.send(.text("subscribe-\(context.attempt)")) }
        let client = try RealtimeClient(url: server.wsURL("/ws?mode=echo"), configuration: c)
        defer { client.close() }
        let echoes = Observed<[String]>([])
        let closes = Observed(0)
        let consumer = Task {
            for await event in client.events {
                switch event {
                case .event(let m): echoes.update { $0.append(m.text ?? "?") }
                case .closed: closes.update { $0 += 1 }
                default: break
                }
            }
        }
        defer { consumer.cancel() }
        await echoes.wait("the first subscribe's echo") { $0 == ["subscribe-1"] }
        server.stop()
        await closes.wait("the connection to drop") { $0 == 1 }
        // Sent while the server is down: queued in the client's outbox, one after the other
        // (three tasks started at once would queue in whatever order they run).
        var sends: [Task<Void, any Error>] = []
        for (i, text) in ["q1", "q2", "q3"].enumerated() {
            sends.append(Task { try await client.send(.text(text)) })
            await client.untilOutboxHolds(i + 1)
        }
        try server.start()
        for task in sends { try await task.value }
        await echoes.wait("the echoes after the restart") { $0.count == 5 }
        let second = try #require(server.webSocketSessions.last)
        #expect(second.textMessages.first?.hasPrefix("subscribe-") == true, "\(second.textMessages)")
        #expect(Array(second.textMessages.dropFirst()) == ["q1", "q2", "q3"], "\(second.textMessages)")
        #expect(echoes.value.dropFirst().first?.hasPrefix("subscribe-") == true, "\(echoes.value)")
    }
}
#endif
