import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// The `LLMChat` example as a child process against the test server's fake endpoints:
/// a reply streams, a new prompt interrupts the previous reply, errors show their cause.
@Suite(.serialized, .timeLimit(.minutes(3))) struct LLMChatTests {
    func chat(_ arguments: [String], input: String) async throws -> RtcatTests.Run {
        try await RtcatTests().rtcat(arguments, input: input, executable: "LLMChat")
    }

    static func server() throws -> TestServer {
        let server = TestServer()
        try server.start()
        return server
    }

    @Test(arguments: ["openai", "anthropic"]) func aNewPromptInterruptsTheStreamingReply(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        // Both prompts arrive at once; each reply takes about 100 ms: the first is cut short.
        let url = server.url("/llm/\(format)?echo=1&interval_ms=25").absoluteString
        let r = try await chat(["--format", format, "--token", "secret-token", url], input: "first question here\nsecond one\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("you: first question here\nassistant: "))
        #expect(r.stdout.contains("[interrupted by a new prompt]\nyou: second one\nassistant: You said: second one\n[finished: "))
        #expect(r.stdout.components(separatedBy: "[finished:").count == 2, "one reply finished: \(r.stdout)")
        #expect(!r.stdout.contains("first question here\n[finished"))
        // The first request may not have gone out before it was cancelled; the second did.
        let requests = server.requests(path: "/llm/\(format)")
        #expect((1...2).contains(requests.count))
        // The second request carries the conversation, ending with the second prompt. The
        // server may record the cancelled first request after it (two connections).
        let conversations = try requests.map { request -> [String] in
            let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            return try #require(body["messages"] as? [[String: Any]]).compactMap { $0["content"] as? String }
        }
        let second = try #require(conversations.firstIndex { $0.last == "second one" }, "\(conversations)")
        #expect(conversations[second].first == "first question here")
        #expect(conversations.filter { $0.last == "second one" }.count == 1)
        if format == "openai" {
            #expect(requests[second].headers["Authorization"] == "Bearer secret-token")
        } else {
            #expect(requests[second].headers["x-api-key"] == "secret-token")
            #expect(requests[second].headers["anthropic-version"] == "2023-06-01")
        }
    }

    @Test func aFailedReplyPrintsItsErrorAndExitsOne() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await chat([server.url("/llm/openai?status=429&retry_after=7").absoluteString], input: "hi\n")
        #expect(r.status == 1, "\(r.stderr)")
        let body = LLMReplyOptions(format: .openAI).errorBody(status: 429)
        #expect(r.stdout.contains("[error: http_status (429) · status 429 · retry after 7 s · body: \(body)]"), "\(r.stdout)")
        #expect(server.requests(path: "/llm/openai").count == 1)
    }

    /// Reasoning is shown after `(thinking)` on a line of its own, before the answer.
    @Test(arguments: ["openai", "anthropic"]) func reasoningIsShownApartFromTheAnswer(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let url = server.url("/llm/\(format)?echo=1&reasoning=1").absoluteString
        let r = try await chat(["--format", format, url], input: "hi\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("you: hi\nassistant: (thinking) Thinking about the réply…\nYou said: hi\n[finished: "), "\(r.stdout)")
        #expect(!r.stdout.contains("\u{1B}["), "no terminal codes when the output is not a terminal")
    }

    @Test func anInStreamErrorIsShownAfterThePartialReply() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await chat(["--format", "anthropic", server.url("/llm/anthropic?reply=error").absoluteString], input: "hi\n")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout.contains("assistant: Héllo, wör\n[error: stream_error: anthropic overloaded_error · body: "))
    }

    @Test func usageErrorsExitTwo() async throws {
        for arguments in [[String](), ["--format", "x", "--demo"], ["--demo", "http://127.0.0.1:1/"], ["ws://127.0.0.1:1/"]] {
            let r = try await chat(arguments, input: "")
            #expect(r.status == 2, "\(arguments)")
            #expect(r.stderr.contains("usage: LLMChat"))
        }
    }
}
