@testable import RealtimeSSE
import Testing

@Suite("SSEResponseHead", .timeLimit(.minutes(1)))
struct SSEResponseHeadTests {
    private func consume(_ lines: [String]) -> (SSEResponseHead, [SSEResponseHead.Line]) {
        var head = SSEResponseHead()
        var kinds: [SSEResponseHead.Line] = []
        for line in lines {
            kinds.append(Array(line.utf8).withUnsafeBytes { head.consume($0) })
        }
        return (head, kinds)
    }

    @Test("status line, fields, blank line; a new status line starts over")
    func lines() {
        let (head, kinds) = consume([
            "HTTP/1.1 301 Moved\r\n", "Location: /a\r\n", "\r\n",
            "HTTP/2 200 \r\n", "content-type:  text/event-stream ; charset=utf-8 \r\n", "X-A: 1\r\n", "\r\n",
        ])
        #expect(kinds.map { "\($0)" } == ["statusLine", "field", "end", "statusLine", "field", "field", "end"])
        #expect(head.sawResponse)
        #expect(head.headers["Location"] == nil)
        #expect(head.headers["X-A"] == "1")
        #expect(head.isEventStream)
        #expect(head.mediaType == "text/event-stream")
    }

    @Test("content type matching ignores case and parameters only")
    func contentTypes() {
        for (value, expected) in [
            ("text/event-stream", true), ("TEXT/Event-Stream", true), ("text/event-stream;charset=utf-8", true),
            ("text/event-streams", false), ("text/html", false), ("", false), ("application/json; x=text/event-stream", false),
        ] {
            let (head, _) = consume(["HTTP/1.1 200 OK\r\n", "Content-Type: \(value)\r\n", "\r\n"])
            #expect(head.isEventStream == expected, "\(value)")
        }
        let (none, _) = consume(["HTTP/1.1 200 OK\r\n", "\r\n"])
        #expect(!none.isEventStream)
        #expect(none.mediaType == "none")
    }

    @Test("Location is kept as sent, trimmed (an empty one is refused by SSEHop)")
    func location() {
        #expect(consume(["HTTP/1.1 302 Found\r\n", "Location: \r\n"]).0.headers["Location"] == "")
        #expect(consume(["HTTP/1.1 302 Found\r\n", "Location:  /x \r\n"]).0.headers["Location"] == "/x")
        #expect(consume(["HTTP/1.1 302 Found\r\n"]).0.headers["Location"] == nil)
    }
}
