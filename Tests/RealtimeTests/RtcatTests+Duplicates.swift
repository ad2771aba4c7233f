#if os(Linux)
import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

extension RtcatTests {
    /// Connection n (counted by the `Last-Event-ID` it sends: none, "3", "6") gets ids 1…3n, then a clean end.
    static func replayingServer() throws -> TestServer {
        let server = TestServer()
        try server.start()
        server.setHandler(path: "/snapshot") { writer in
            let resumedFrom = writer.request.headers["Last-Event-ID"].flatMap { Int($0) } ?? 0
            try writer.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .closeDelimited)
            for id in 1...(resumedFrom + 3) { try writer.write("id: \(id)\ndata: event \(id)\n\n") }
            try writer.finish()
        }
        return server
    }

    /// `--drop-duplicates` against a server that replays its snapshot on every resume.
    @Test func dropDuplicatesPrintsEachReplayedIDOnce() async throws {
        let server = try Self.replayingServer()
        defer { server.stop() }
        let url = server.url("/snapshot").absoluteString
        let r = try await rtcat(["--backoff-initial", "0.1", "--drop-duplicates", "numeric", "--count", "9", url])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.objects.strings("id") == decimalIDs(1...9))
        let plain = try await rtcat(["--backoff-initial", "0.1", "--count", "9", url])
        #expect(plain.objects.strings("id") == ["1", "2", "3", "1", "2", "3", "4", "5", "6"])
        let bad = try await rtcat(["--drop-duplicates", "sometimes", url])
        #expect(bad.status == 2 && bad.stderr.contains("--drop-duplicates takes numeric or recent"), "\(bad.stderr)")
    }
}
#endif
