import Realtime
import Testing

/// The parser as the Transports article shows it to code with an HTTP client of its own:
/// chunks of a body in, events and hints out, the last event ID for the reconnect.
@Suite struct SSEParserPublicAPITests {
    @Test func theArticlesStreamGivesOneEventAndOneHint() throws {
        var parser = SSEParser(limits: SSEParser.Limits(maxEventSize: 1 << 20))
        var outputs: [SSEParser.Output] = []
        for chunk in ["event: price\nid: 4", "2\ndata: {\"usd\":1}\n", "\nretry: 3000\n\n"] {
            outputs += try parser.feed(Array(chunk.utf8))
        }
        #expect(outputs == [.event(ServerSentEvent(type: "price", data: "{\"usd\":1}", lastEventID: "42")), .retry(milliseconds: 3000)])
        parser.finish()
        #expect(parser.lastEventID == "42")
    }

    @Test func aCrossedLimitThrowsUntilTheStreamIsFinished() throws {
        var parser = SSEParser(limits: SSEParser.Limits(maxLineLength: 64, maxEventSize: 8))
        let error = #expect(throws: RealtimeError.self) { try parser.feed(Array("data: 0123456789\n\n".utf8)) }
        #expect(error?.code == .eventTooLarge)
        #expect(throws: RealtimeError.self) { try parser.feed(Array("data: ok\n\n".utf8)) }
        parser.finish()
        #expect(try parser.feed(Array("data: ok\n\n".utf8)) == [.event(ServerSentEvent(data: "ok"))])
    }

    @Test func commentsComeOutOnlyWhenAskedFor() throws {
        var quiet = SSEParser()
        var chatty = SSEParser(reportsComments: true)
        let body = Array(": keep-alive\ndata: x\n\n".utf8)
        #expect(try quiet.feed(body) == [.event(ServerSentEvent(data: "x"))])
        #expect(try chatty.feed(body) == [.comment("keep-alive"), .event(ServerSentEvent(data: "x"))])
    }
}
