import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// `Examples/Chat` as a child process against the test server's echo endpoint: lines typed
/// while the server is down go out once, in order, when it is back; the fixed heartbeat pings
/// while messages flow; the state is shown.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ChatExampleTests {
    @Test func linesTypedWhileTheServerIsDownArriveOnceInOrderAfterItComesBack() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let chat = try ExampleProcess("Chat", ["--ping", "0.2", server.wsURL("/ws").absoluteString])
        try await chat.waitForLine("connected") { $0.hasPrefix("* connected: websocket ws://127.0.0.1:") }
        // Lines back to back, each after the last one's echo, until the server has seen two
        // pings: the fixed heartbeat pings while messages flow (an idle-mode one never would).
        var typed = 0
        while typed < 10 || (server.webSocketSessions.first?.pingsReceived ?? 0) < 2, typed < 5_000 {
            typed += 1
            chat.write("before \(typed)\n")
            try await chat.waitForLine("the echo") { [typed] in $0 == "< before \(typed)" }
        }

        server.stop()
        try await chat.waitForLine("the drop to be shown") { $0.hasPrefix("* ") && $0.contains("retrying in") }
        for text in ["typed while down", "and another"] { chat.write(text + "\n") }
        try await chat.waitForLine("the line to be queued") { $0 == #"* not connected: "typed while down" goes out when the connection is back"# }
        let restartedAt = ContinuousClock.now
        try server.start()
        try await chat.waitForLine("the queued lines' echoes") { $0 == "< and another" }
        let deliveredIn = ContinuousClock.now - restartedAt
        chat.closeInput()
        #expect(await chat.exitStatus() == 0)

        let sessions = server.webSocketSessions
        let received = sessions.flatMap(\.textMessages)
        let sent = (1...typed).map { "before \($0)" } + ["typed while down", "and another"]
        print("Chat example: \(sessions.count) connections; the 2 lines typed while the server was down echoed \(deliveredIn.millisecondsDescription) after its restart; \(sessions.first?.pingsReceived ?? 0) pings during \(typed) lines of traffic")
        #expect(received == sent, "each line once, in order")
        #expect(sessions.count == 2)
        #expect(sessions.last?.textMessages == ["typed while down", "and another"], "the queued lines went on the new connection")
        #expect(chat.lines.filter { $0.hasPrefix("< ") } == sent.map { "< " + $0 }, "each echo printed once")
        #expect((sessions.first?.pingsReceived ?? 0) >= 2, "a fixed heartbeat pings while the server talks")
    }

    @Test func usageErrorsExitTwo() async throws {
        for arguments in [[String](), ["http://127.0.0.1:1/"], ["--demo", "ws://127.0.0.1:1/"], ["--ping", "0", "--demo"]] {
            let chat = try ExampleProcess("Chat", arguments)
            #expect(await chat.exitStatus() == 2, "\(arguments)")
        }
    }
}
