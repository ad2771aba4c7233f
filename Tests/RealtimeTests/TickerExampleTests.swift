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

    @Test func stoppedMidStreamAndRestartedItPrintsEveryIDOnce() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let cursor = Self.cursorFile()
        defer { try? FileManager.default.removeItem(atPath: cursor) }
        let url = server.url("/sse?count=300&interval_ms=5&end=hold").absoluteString
        var printed: [Int] = []
        for life in 1...3 {
            let ticker = try ExampleProcess("Ticker", ["--cursor", cursor, url])
            let target = life * 100
            try await ticker.waitForLine("id \(target) in life \(life)") { Self.ids([$0]).first ?? 0 >= min(target, 300) }
            ticker.signal(SIGTERM)  // mid-stream: events keep arriving every 5 ms
            #expect(await ticker.exitStatus() == 0, "life \(life)")
            printed += Self.ids(ticker.lines)
        }
        let resumes = server.requests(path: "/sse").map { $0.headers["Last-Event-ID"] }
        print("Ticker example: 3 lives printed \(printed.count) ids; resumed from \(resumes.map { $0 ?? "nothing" })")
        #expect(printed == Array(1...300), "every id exactly once, in order")
        #expect(resumes.count == 3 && resumes.first == .some(nil))
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
