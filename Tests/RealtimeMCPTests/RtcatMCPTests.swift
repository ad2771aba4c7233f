import Foundation
import RealtimeMCP
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// `rtcat mcp` as a child process against the Python `mcp` SDK's server, in both wire
/// generations: the tool listing, a call's progress lines and result, the exit codes.
@Suite("rtcat mcp", .timeLimit(.minutes(4)), .serialized)
struct RtcatMCPTests {
    struct Run {
        var status: Int32
        var lines: [JSONValue]
        var stderr: String
    }

    static func rtcat(_ arguments: [String], input: String = "") async throws -> Run {
        guard let url = BuiltExecutable.url(named: "rtcat") else {
            Issue.record("rtcat binary not found; run `swift build` first")
            return Run(status: -1, lines: [], stderr: "")
        }
        let run = try await offloaded {
            try SpawnedProcess.run(url.path, ["mcp"] + arguments, input: .bytes(Array(input.utf8)), timeout: .seconds(60))
        }
        let lines = run.outputText.split(separator: "\n").map { line -> JSONValue in
            guard let value = try? JSONValue(json: Data(line.utf8)) else {
                Issue.record("not JSON: \(line)")
                return .null
            }
            return value
        }
        return Run(status: run.termination?.status ?? 137, lines: lines, stderr: run.errorText)
    }

    @Test("lists the tools, one JSON line each with its name, and calls one with progress, in both generations")
    func listAndCall() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        for revision in ["2025-11-25", "2026-07-28"] {
            let list = try await Self.rtcat(["--revision", revision, peer.url().absoluteString])
            #expect(list.status == 0, "\(list.stderr)")
            let names = list.lines.compactMap { $0["name"]?.stringValue }
            #expect(names.contains("progress"))
            let call = try await Self.rtcat([
                "--revision", revision, "--call", "progress", "--arguments", #"{"steps": 2, "delay": 0.01}"#,
                peer.url().absoluteString,
            ])
            #expect(call.status == 0, "\(call.stderr)")
            let kinds = call.lines.map { $0["kind"]?.stringValue ?? "?" }
            #expect(kinds == ["progress", "progress", "result"])
            let text = call.lines.last?["content"]?.arrayValue?.first?["text"]?.stringValue
            #expect(text == "done 2")
        }
        // Each rtcat process numbers its requests from 1: the call is request 2 after
        // initialize, request 3 after server/discover and the tools/list that tells a
        // 2026-07-28 client its Mcp-Param arguments; each went out once.
        let counts = try await peer.postCounts()
        #expect(counts["tools/call 2"] == 1)
        #expect(counts["tools/call 3"] == 1)
        await peer.stop()
    }

    @Test("--elicit (from a file) and --roots answer a 2026-07-28 tool's input rounds")
    func inputRounds() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let answer = FileManager.default.temporaryDirectory.appendingPathComponent("rtcat-elicit-\(getpid()).json")
        try Data(#"{"action": "accept", "content": {"ok": true}}"#.utf8).write(to: answer)
        defer { try? FileManager.default.removeItem(at: answer) }
        let run = try await Self.rtcat([
            "--revision", "2026-07-28", "--call", "confirm", "--arguments", #"{"action": "deploy"}"#,
            "--elicit", "@" + answer.path, "--roots", "file:///a,file:///b",
            peer.url().absoluteString,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let text = run.lines.last?["content"]?.arrayValue?.first?["text"]?.stringValue
        #expect(text == "deploy: accept ok=True roots=2 state=round-2")
        await peer.stop()
    }

    @Test("--elicit ask: the form is asked on the terminal and answered from standard input")
    func elicitationPrompt() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        for (input, expected) in [
            ("\nmaybe\ny\n", "deploy: accept ok=True roots=1 state=round-2"),
            ("decline\n", "deploy: decline ok=None roots=1 state=round-2"),
        ] {
            let run = try await Self.rtcat([
                "--revision", "2026-07-28", "--call", "confirm", "--arguments", #"{"action": "deploy"}"#,
                "--elicit", "ask", "--roots", "file:///a", peer.url().absoluteString,
            ], input: input)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.lines.last?["content"]?.arrayValue?.first?["text"]?.stringValue == expected, "\(run.lines)")
            #expect(run.stderr.contains("Confirm deploy?"), "the server's message is shown")
            if input.hasPrefix("\n") { #expect(run.stderr.contains("not a boolean"), "an answer that does not fit is asked again") }
        }
        await peer.stop()
    }

    @Test("a server of the HTTP+SSE transport is listed through the negotiation's fallback")
    func legacyServer() async throws {
        let peer = try await MCPPeer.sdk(["--legacy-sse"])
        defer { peer.peer.terminate() }
        let list = try await Self.rtcat([peer.url("/sse").absoluteString])
        #expect(list.status == 0, "\(list.stderr)")
        let names = list.lines.compactMap { $0["name"]?.stringValue }
        #expect(names.contains("echo"))
        await peer.stop()
    }

    /// rtcat listens while this test publishes changes (again and again, until rtcat has
    /// printed the two it waits for: the publications before its stream is acknowledged
    /// reach no one).
    @Test("--listen prints the acknowledgement and each change, and stops after --changes")
    func listen() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let finished = Counter()
        let listener = Task {
            defer { finished.increment() }
            return try await Self.rtcat([
                "--revision", "2026-07-28", "--listen", "tools", "--resource", "res://greeting", "--changes", "2",
                peer.url().absoluteString,
            ])
        }
        let publisher = MCPPythonSDKTests.client(peer.url(), revision: .fixed(.v2026_07_28))
        try await publisher.connect()
        for _ in 0..<100 where finished.value == 0 {
            // The publisher only drives the test (rtcat is what is tested): a publication that
            // fails on a loaded machine is simply made again on the next round.
            _ = try? await publisher.callTool("publish", arguments: ["kind": "tools"])
            try await Task.sleep(for: .milliseconds(100))
        }
        let run = try await listener.value
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.first?["kind"] == "listening")
        #expect(run.lines.first?["tools"] == true)
        #expect(run.lines.first?["uris"] == ["res://greeting"])
        #expect(run.lines.dropFirst().map { $0["change"] } == ["tools", "tools"])
        await publisher.close()
        await peer.stop()
    }

    @Test("an unknown tool and a bad argument exit 1 and 2")
    func failures() async throws {
        let peer = try await MCPPeer.sdk()
        defer { peer.peer.terminate() }
        let unknown = try await Self.rtcat(["--call", "nope", peer.url().absoluteString])
        #expect(unknown.status == 1)
        let kind = unknown.lines.last?["kind"]?.stringValue ?? ""
        #expect(["error", "result"].contains(kind))
        let usage = try await Self.rtcat(["--arguments", "[1]", peer.url().absoluteString])
        #expect(usage.status == 2)
        await peer.stop()
    }
}
