#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// Exact resume across a real process restart: each "life" of a consumer is a child process
/// (this test binary again) with a cursor store in a file; the parent runs lives one after the
/// other against one server and checks that every id was processed exactly once, and what
/// each life sent as `Last-Event-ID`. Both ways to consume are covered: `consume` (return,
/// throw, `stop()`) and `for await` with `acknowledge()` before `break` (and the pitfall
/// without it).
@Suite(.serialized, .timeLimit(.minutes(3))) struct RealtimeClientRestartTests {
    static let variable = "RT_RESTART_LIFE"

    /// How one life consumes: `style`, stopping after `stopAfter` processed events, or throwing
    /// at id `failAt` (consume only).
    struct Life: Codable {
        enum Style: String, Codable { case consume, forAwaitAcknowledge, forAwaitBreak }
        var style: Style
        var url: String
        var directory: String
        var stopAfter: Int
        var failAt: Int?
    }

    @Test func consumeCommitsWhatReturnedAcrossRestarts() async throws {
        if let life = Self.childLife() { return try await Self.live(life) }
        let (server, dir) = try Self.fixture()
        defer { server.stop() }
        let url = server.url("/sse?count=10&end=hold").absoluteString
        // Returning commits; stop() after an event commits it.
        try await Self.run(Life(style: .consume, url: url, directory: dir, stopAfter: 3), test: "consumeCommits")
        // A throw does not commit: id 6 comes again in the next life.
        try await Self.run(Life(style: .consume, url: url, directory: dir, stopAfter: 100, failAt: 6), test: "consumeCommits")
        try await Self.run(Life(style: .consume, url: url, directory: dir, stopAfter: 5), test: "consumeCommits")
        #expect(Self.processed(dir) == Array(1...10), "every id processed exactly once")
        #expect(Self.resumedFrom(server) == [nil, "3", "5"])
    }

    @Test func forAwaitWithAcknowledgeBeforeBreakResumesExactly() async throws {
        if let life = Self.childLife() { return try await Self.live(life) }
        let (server, dir) = try Self.fixture()
        defer { server.stop() }
        let url = server.url("/sse?count=10&end=hold").absoluteString
        try await Self.run(Life(style: .forAwaitAcknowledge, url: url, directory: dir, stopAfter: 4), test: "forAwaitWith")
        try await Self.run(Life(style: .forAwaitAcknowledge, url: url, directory: dir, stopAfter: 6), test: "forAwaitWith")
        #expect(Self.processed(dir) == Array(1...10))
        #expect(Self.resumedFrom(server) == [nil, "4"])
    }

    /// The pitfall the `events` documentation warns about, shown to be real: `break` after
    /// processing an event without acknowledging it leaves it unprocessed.
    @Test func forAwaitBreakWithoutAcknowledgeRepeatsTheLastEvent() async throws {
        if let life = Self.childLife() { return try await Self.live(life) }
        let (server, dir) = try Self.fixture()
        defer { server.stop() }
        let url = server.url("/sse?count=10&end=hold").absoluteString
        try await Self.run(Life(style: .forAwaitBreak, url: url, directory: dir, stopAfter: 4), test: "forAwaitBreak")
        try await Self.run(Life(style: .forAwaitBreak, url: url, directory: dir, stopAfter: 2), test: "forAwaitBreak")
        #expect(Self.processed(dir) == [1, 2, 3, 4, 4, 5])
        #expect(Self.resumedFrom(server) == [nil, "3"])
    }

    // MARK: The parent

    static func fixture() throws -> (TestServer, String) {
        let server = TestServer()
        try server.start()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rt-restart-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return (server, dir)
    }

    /// Runs one life in a child process (the test whose name starts with `test`).
    static func run(_ life: Life, test: String) async throws {
        let spec = String(decoding: try JSONEncoder().encode(life), as: UTF8.self)
        let (status, output) = try await offloaded {
            try ChildTestProcess.run(filter: "RealtimeClientRestartTests/\(test)", variable: variable, value: spec, timeoutSeconds: 60)
        }
        #expect(status == 0, "the life \(life.style) failed (exit \(status)): \(output.suffix(2000))")
    }

    /// The ids processed over every life, in order.
    static func processed(_ dir: String) -> [Int] {
        let text = (try? String(contentsOfFile: dir + "/processed", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { Int($0) }
    }

    /// The `Last-Event-ID` each life's first request carried.
    static func resumedFrom(_ server: TestServer) -> [String?] {
        server.requests(path: "/sse").map { $0.headers["Last-Event-ID"] }
    }

    // MARK: The child

    static func childLife() -> Life? {
        guard let spec = ProcessInfo.processInfo.environment[variable] else { return nil }
        ChildTestProcess.lowerPriority()
        return try? JSONDecoder().decode(Life.self, from: Data(spec.utf8))
    }

    /// One life: a client whose cursor lives in `directory/cursor`, each processed id
    /// appended to `directory/processed`.
    static func live(_ life: Life) async throws {
        let cursorPath = life.directory + "/cursor"
        var configuration = RealtimeClient.Configuration()
        configuration.cursorStore = CursorStore(
            load: { try? String(contentsOfFile: cursorPath, encoding: .utf8) },
            save: { cursor in try? Data(cursor.utf8).write(to: URL(fileURLWithPath: cursorPath), options: .atomic) })
        let client = try RealtimeClient(url: URL(string: life.url)!, configuration: configuration)
        let journal = try FileHandle(forUpdating: {
            let path = life.directory + "/processed"
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            return URL(fileURLWithPath: path)
        }())
        defer { try? journal.close() }
        try journal.seekToEnd()
        let process: (Message) throws -> Int = { message in
            let id = Int(message.id ?? "") ?? -1
            if id == life.failAt { throw RealtimeError(.internal, detail: "the handler failed at \(id)") }
            try journal.write(contentsOf: Data("\(id)\n".utf8))
            return id
        }
        var count = 0
        switch life.style {
        case .consume:
            do {
                try await client.consume { event, context in
                    guard case .event(let message) = event else { return }
                    _ = try process(message)
                    count += 1
                    if count == life.stopAfter { context.stop() }
                }
            } catch let error as RealtimeError where error.code == .internal {}
        case .forAwaitAcknowledge, .forAwaitBreak:
            for await event in client.events {
                guard case .event(let message) = event else { continue }
                _ = try process(message)
                count += 1
                if count == life.stopAfter {
                    if life.style == .forAwaitAcknowledge { await client.acknowledge() }
                    break
                }
            }
        }
    }
}
#endif
