import Foundation
import Testing
import RealtimeTestServer
import RealtimeTestSupport
@testable import RealtimeCore

/// Runs the built `rtcat parse-sse` binary on sample input, garbage included, and checks its
/// JSON lines and exit codes. (`swift test` builds every product, rtcat included.)
@Suite(.timeLimit(.minutes(1))) struct SSEParseCommandTests {
    static func rtcatURL() -> URL? { BuiltExecutable.url(named: "rtcat") }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    func run(_ arguments: [String], input: [UInt8]) async throws -> Run {
        let run = try await offloaded { try Self.runBlocking(arguments, input: input) }
        #expect(run.status != -1, "rtcat binary not found; run `swift build` first")
        return run
    }

    private static func runBlocking(_ arguments: [String], input: [UInt8]) throws -> Run {
        guard let url = Self.rtcatURL() else {
            return Run(status: -1, stdout: "", stderr: "")
        }
        // Standard input from a temporary file so large inputs cannot deadlock on pipe buffers.
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("rtcat-in-\(UUID().uuidString)")
        try Data(input).write(to: tmp)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let run = try SpawnedProcess.run(url.path, arguments, input: .file(tmp.path), timeout: .seconds(120))
        return Run(status: run.termination?.status ?? -1, stdout: run.outputText, stderr: run.errorText)
    }

    static let sample = Array("""
        : comment\r
        event: greet\r
        id: 1\r
        data: hello\r
        data: "world"\t\\\r
        \r
        retry: 2500
        data: é日🎉

        """.utf8) + Array("\ndata: \u{1}\u{1F}".utf8) + [0xFF, 0xC3, 0x0A, 0x0A]

    static let expected = [
        #"{"type": "greet", "data": "hello\n\"world\"\t\\", "id": "1"}"#,
        #"{"retry": 2500}"#,
        #"{"type": "message", "data": "é日🎉", "id": "1"}"#,
        #"{"type": "message", "data": "\u0001\u001f\#u{FFFD}\#u{FFFD}", "id": "1"}"#,
    ]

    @Test func printsEventsAndRetryAsJSONLines() async throws {
        for args in [["parse-sse"], ["parse-sse", "--chunk", "1"], ["parse-sse", "--chunk", "7"]] {
            let r = try await run(args, input: Self.sample)
            #expect(r.status == 0, "\(args)")
            #expect(r.lines == Self.expected, "\(args)")
            // Every line is valid JSON.
            for line in r.lines {
                #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
            }
        }
    }

    @Test func quietPrintsOnlyTotals() async throws {
        let r = try await run(["parse-sse", "--quiet"], input: Self.sample)
        #expect(r.status == 0)
        // hello\n"world"\t\ = 15 bytes, é日🎉 = 9, \u{1}\u{1F}\u{FFFD}\u{FFFD} = 8.
        #expect(r.lines == [#"{"events": 3, "dataBytes": 32}"#])
    }

    @Test func binaryGarbageGivesValidJSONAndExitZero() async throws {
        var rng = SeededGenerator(seed: 99)
        var input: [UInt8] = []
        for _ in 0..<3000 {
            if Int.random(in: 0..<4, using: &rng) == 0 { input += Array("data: ".utf8) }
            input += (0..<Int.random(in: 0..<40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng) { input += [0x0A, 0x0A] }
        }
        let r = try await run(["parse-sse", "--chunk", "13"], input: input)
        #expect(r.status == 0)
        #expect(r.lines.count > 100)
        for line in r.lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "\(line)")
        }
        // The same bytes through the library give the same number of events.
        var parser = SSEParser()
        let outputs = try parser.feed(input)
        #expect(outputs.count == r.lines.count)
    }

    @Test func limitErrorExitsOne() async throws {
        let input = Array("data: ok\n\ndata: ".utf8) + [UInt8](repeating: 0x61, count: (16 << 20) + 10)
        let r = try await run(["parse-sse"], input: input)
        #expect(r.status == 1)
        #expect(r.lines == [#"{"type": "message", "data": "ok", "id": ""}"#])
        #expect(r.stderr.contains("line_too_long"))
    }

    @Test func usageErrorsExitTwo() async throws {
        for args in [["parse-sse", "--chunk"], ["parse-sse", "--chunk", "0"], ["parse-sse", "--chunk", "x"],
                     ["parse-sse", "--bogus"], ["no-such-command"], []] {
            let r = try await run(args, input: [])
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.contains("usage"), "\(args)")
            #expect(r.stdout.isEmpty)
        }
        #expect(try await run(["parse-sse"], input: []).status == 0)
    }
}
