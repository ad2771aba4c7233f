import RealtimeTestSupport
import Testing
@testable import RealtimeCore

/// SSE comments (`:` lines): ignored by default as WHATWG says; with `reportsComments`,
/// reported in stream order, text after the colon less one leading space, whatever the
/// chunking, without changing the events around them.
@Suite(.timeLimit(.minutes(1))) struct SSEParserCommentTests {
    static let stream = Array(": hello\n:ping\n:  two spaces\ndata: a\n: inside an event\ndata: b\n\n:\n:é ü\r\nid: 7\ndata: c\n\n".utf8)

    @Test func commentsAreIgnoredByDefault() {
        let r = parseSSE(Self.stream)
        #expect(r.outputs == [
            .event(ServerSentEvent(type: "message", data: "a\nb", lastEventID: "")),
            .event(ServerSentEvent(type: "message", data: "c", lastEventID: "7")),
        ])
    }

    @Test func reportedCommentsComeInStreamOrderWithTheirText() {
        let r = parseSSE(Self.stream, reportsComments: true)
        #expect(r.outputs == [
            .comment("hello"), .comment("ping"), .comment(" two spaces"), .comment("inside an event"),
            .event(ServerSentEvent(type: "message", data: "a\nb", lastEventID: "")),
            .comment(""), .comment("é ü"),
            .event(ServerSentEvent(type: "message", data: "c", lastEventID: "7")),
        ])
    }

    @Test func theBorrowingFeedReportsThemToo() throws {
        for chunking in Chunking.all {
            var parser = SSEParser(reportsComments: true)
            var seen: [String] = []
            for chunk in chunking.split(Self.stream) {
                try chunk.withUnsafeBytes { bytes in
                    try parser.feed(bytes) { output in
                        if case .comment(let text) = output { seen.append("comment:" + text) }
                    } borrowing: { e in
                        seen.append("event:" + e.decodedData())
                    }
                }
            }
            #expect(seen == [
                "comment:hello", "comment:ping", "comment: two spaces", "comment:inside an event", "event:a\nb",
                "comment:", "comment:é ü", "event:c",
            ], "\(chunking)")
        }
    }

    @Test func aCommentIsBoundedByTheLineLimit() {
        let long = Array(":".utf8) + [UInt8](repeating: 0x61, count: 100) + Array("\n".utf8)
        let r = parseSSE(long, limits: SSEParser.Limits(maxEventSize: 64), reportsComments: true)
        #expect(r.error == .lineTooLong)
        #expect(r.outputs.isEmpty)
    }
}
