import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestServer

/// `rtcat demo`: both transports through the same ``RealtimeClient``, against the embedded
/// ``TestServer`` on a random loopback port in this process, in a few seconds.
///
/// 1. SSE: 10 events, paced 100 ms apart; the server cuts the first connection mid-stream,
///    the client reconnects with `Last-Event-ID` and gets the rest exactly once; after the
///    last event the server answers the next resume with 204 ("do not reconnect").
/// 2. WebSocket: a few text messages and one binary message to the echo endpoint, each echo
///    printed, then a clean close (1000).
/// 3. LLM: a model's reply streamed from the fake OpenAI endpoint (POST, sent once), printed
///    as `rtcat llm --coalesce 0.1` does: text in batches, then `finished`.
///
/// The JSON lines are those of `rtcat URL` (standard output); headings and what the server
/// saw go to standard error. Exit status 0 when every part ended as expected, else 1.
enum DemoCommand {
    static let subcommand = Subcommand(
        name: "demo",
        usage: "",
        summary: "start the embedded test server and show SSE (with a cut and a resume) and a WebSocket echo",
        run: { await run($0) })

    /// The SSE demo stream: `cuts=1&seed=…` cuts only the first connection, at a byte the seed
    /// places in the middle of the stream (inside event 4); `end=204` ends the resume loop.
    static let ssePath = "/sse?count=10&interval_ms=100&cuts=1&seed=7&end=204"
    static let echoPath = "/ws?mode=echo"
    /// The LLM demo reply: 40 text deltas, 25 ms apart (about a second), coalesced by 100 ms.
    static let llmPath = "/llm/openai?count=40&interval_ms=25"
    static let llmBody = #"{"model":"test-model","stream":true,"messages":[{"role":"user","content":"Say hello"}]}"#
    static let outgoing: [OutboundMessage] = [
        .text("hello"),
        .text("héllo wörld 🌍"),
        .text(#"{"type": "chat", "body": "hi"}"#),
        .binary([0xDE, 0xAD, 0xBE, 0xEF]),
    ]

    static func run(_ arguments: [String]) async -> Int32 {
        guard arguments.isEmpty else {
            StandardError.write("rtcat demo: takes no arguments\nusage: rtcat demo\n")
            return Subcommand.usage
        }
        let server: TestServer
        do {
            server = try TestServer.runDemoServer()
        } catch {
            StandardError.write("rtcat demo: cannot start the test server: \(error)\n")
            return Subcommand.failure
        }
        defer { server.stop() }
        StandardError.write("rtcat demo: test server listening on 127.0.0.1:\(server.port) (in this process)\n")

        // 1. SSE.
        let sseURL = server.url(ssePath)
        StandardError.write("""

            == SSE: 10 events; the server cuts the first connection mid-stream, the client
               resumes with Last-Event-ID, and a resume after the last event gets 204 (stop)
               GET \(sseURL.absoluteString)

            """)
        var sse = ConnectSession(url: sseURL, configuration: sseConfiguration)
        sse.name = "rtcat demo"
        let sseOutcome = await sse.run()
        let resumes = server.requests(path: "/sse").map { $0.headers["Last-Event-ID"] ?? "(none)" }
        StandardError.write("   server saw \(resumes.count) requests, Last-Event-ID: \(resumes.joined(separator: ", "))\n")

        // 2. WebSocket, through the same client type and the same printing.
        let wsURL = server.wsURL(echoPath)
        StandardError.write("""

            == WebSocket: send \(outgoing.count) messages to the echo endpoint, print the echoes, close with 1000
               \(wsURL.absoluteString)

            """)
        var ws = ConnectSession(url: wsURL, configuration: webSocketConfiguration)
        ws.name = "rtcat demo"
        ws.outgoing = AsyncStream { continuation in
            for message in outgoing { continuation.yield(message) }
            continuation.finish()
        }
        let wsOutcome = await ws.run()
        if let session = server.webSocketSessions.last {
            StandardError.write(
                "   server received \(session.messageCount) messages and close code \(session.closeCode.map(String.init) ?? "none")\n")
        }

        // 3. An LLM reply.
        let llmStatus = await streamLLMReply(server)

        let ok = sseOutcome.status == 0 && sseOutcome.events == 10 && wsOutcome.status == 0
            && wsOutcome.events == outgoing.count && llmStatus == Subcommand.success
        StandardError.write("""

            rtcat demo: \(ok ? "done" : "FAILED"): SSE \(sseOutcome.events) events over \(sseOutcome.opens) connections; \
            WebSocket \(wsOutcome.events) echoes of \(outgoing.count) messages; LLM reply \(llmStatus == 0 ? "finished" : "failed")

            """)
        return ok ? Subcommand.success : Subcommand.failure
    }

    /// Streams the demo LLM reply, printed like `rtcat llm --coalesce 0.1`; returns the exit status.
    static func streamLLMReply(_ server: TestServer) async -> Int32 {
        let url = server.url(llmPath)
        StandardError.write("""

            == LLM: a model's reply in the OpenAI format (POST, sent once), 40 deltas printed in batches
               of at most one per 100 ms, then the whole text with its usage
               POST \(url.absoluteString)

            """)
        var configuration = RealtimeClient.Configuration.llm(body: Array(llmBody.utf8))
        configuration.connectTimeout = .seconds(5)
        guard let client = try? RealtimeClient(url: url, configuration: configuration) else { return Subcommand.failure }
        let status = await LLMCommand.stream(client, format: .openAI, coalesce: .milliseconds(100))
        StandardError.write("   server saw \(server.requests(path: "/llm/openai").count) request(s)\n")
        return status
    }

    /// Quick reconnects so the demo stays short; otherwise the defaults.
    static var sseConfiguration: RealtimeClient.Configuration {
        var c = RealtimeClient.Configuration()
        c.backoff = BackoffPolicy(initial: .milliseconds(200), maximum: .seconds(1))
        c.reconnect = ReconnectPolicy(maxAttempts: 5)
        c.connectTimeout = .seconds(5)
        c.idleTimeout = .seconds(5)
        return c
    }

    static var webSocketConfiguration: RealtimeClient.Configuration {
        var c = sseConfiguration
        c.heartbeat = .ping(every: .seconds(1))
        return c
    }
}
