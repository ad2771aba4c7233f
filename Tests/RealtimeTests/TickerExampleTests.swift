import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// `Examples/Ticker` as a child process against the test server's SSE feed, with its cursor
/// in a file: stopped mid-stream (SIGTERM) and started again, it prints every id exactly once.
@Suite(.serialized, .timeLimit(.minutes(2))) struct TickerExampleTests {
    static func ids(_ lines: [String]) -> [Int] {
        lines.compactMap { $0.split(separator: " ").first.flatMap { Int($0) } }
    }

    static func cursorFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ticker-\(UUID().uuidString)").path
    }

    /// Each life follows a feed that sends 100 ids past the last one printed, one every
    /// 20 ms, and then holds the connection open; it is stopped (SIGTERM) once it printed 50
    /// of them, while events are still arriving (the last life once it printed 300). However
    /// late the signal lands, a life stops mid-stream (at most 100 past its start, on a held
    /// connection), and the next one resumes from what was printed.
    @Test func stoppedMidStreamAndRestartedItPrintsEveryIDOnce() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let cursor = Self.cursorFile()
        defer { try? FileManager.default.removeItem(atPath: cursor) }
        var printed: [Int] = [], lastOfEachLife: [Int] = []
        while printed.last != 300, lastOfEachLife.count < 8 {
            let life = lastOfEachLife.count + 1
            let end = min((printed.last ?? 0) + 100, 300)
            let target = end == 300 ? 300 : end - 50
            let url = server.url("/sse?count=\(end)&interval_ms=20&end=hold").absoluteString
            let ticker = try ExampleProcess("Ticker", ["--cursor", cursor, url])
            do {
                try await ticker.waitForLine("id \(target) in life \(life)") { Self.ids([$0]).first ?? 0 >= target }
            } catch {
                let seen = server.requests(path: "/sse").map { $0.headers["Last-Event-ID"] ?? "nothing" }
                Issue.record("the server saw \(seen.count) requests, resuming from \(seen)")
                throw error
            }
            ticker.signal(SIGTERM)
            #expect(await ticker.exitStatus() == 0, "life \(life)")
            printed += Self.ids(ticker.lines)
            lastOfEachLife.append(printed.last ?? 0)
        }
        let resumes = server.requests(path: "/sse").map { $0.headers["Last-Event-ID"] }
        print("Ticker example: \(lastOfEachLife.count) lives printed \(printed.count) ids; resumed from \(resumes.map { $0 ?? "nothing" })")
        #expect(printed == Array(1...300), "every id exactly once, in order")
        #expect(lastOfEachLife.count >= 3, "stopped mid-stream at least twice")
        #expect(resumes == [nil] + lastOfEachLife.dropLast().map { String($0) }, "each life resumes after the last id printed")
        #expect(try String(contentsOfFile: cursor, encoding: .utf8) == "300")
    }

    @Test func countStopsAfterAnEventThatCountsAsProcessed() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let cursor = Self.cursorFile()
        defer { try? FileManager.default.removeItem(atPath: cursor) }
        let url = server.url("/sse?count=20&end=hold").absoluteString
        var printed: [Int] = []
        for _ in 1...2 {
            let ticker = try ExampleProcess("Ticker", ["--cursor", cursor, "--count", "5", url])
            #expect(await ticker.exitStatus() == 0)
            printed += Self.ids(ticker.lines)
        }
        #expect(printed == Array(1...10))
        #expect(server.requests(path: "/sse").map { $0.headers["Last-Event-ID"] } == [nil, "5"])
    }

    @Test func aFeedThatRefusesEndsWithStatusOne() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let ticker = try ExampleProcess("Ticker", ["--cursor", Self.cursorFile(), server.url("/sse?status=404").absoluteString])
        #expect(await ticker.exitStatus() == 1)
    }
}
