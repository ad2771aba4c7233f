#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The event stream format (WHATWG HTML §9.2.5–9.2.6) through ``RealtimeClient``: line ends
/// and a BOM split across reads, the fields of an event, pending data at the end, strict
/// UTF-8 across reads.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientSSEWireTests {
    /// Plays `chunks` (one read each) on a finite stream's only attempt and returns the
    /// messages the client delivered.
    static func delivered(_ chunks: [[UInt8]], configure: (inout RealtimeClient.Configuration) -> Void = { _ in }) async throws
        -> (messages: [Message], summary: String)
    {
        let t = try EmbeddedClient {
            $0.reconnect = .finite
            configure(&$0)
        }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        for chunk in chunks { first.send(chunk) }
        first.finish()
        await rec.waitUntilFinished()
        return (EmbeddedClientSSELimitTests.messages(rec), rec.summary)
    }

    /// Ways to cut `data: a` / `data: b` / blank line with CR, LF and CRLF line ends.
    static let lineEnds: [[String]] = [
        ["data: a\ndata: b\n\n"],
        ["data: a\rdata: b\r\r"],
        ["data: a\r\ndata: b\r\n\r\n"],
        ["data: a\r", "\ndata: b\r\n\r\n"],  // a CRLF split across reads is one line end
        ["data: a\r\ndata: b\r", "\r"],  // a CR at the end of a read, then the blank line
        ["data: a\r\ndata: b\r\n\r", "\n"],
    ]

    /// CR, LF and CRLF all end a line, also when a CRLF is split across reads: every way
    /// gives one event `a` LF `b`.
    @Test(arguments: lineEnds) func everyLineEndGivesTheSameEvent(chunks: [String]) async throws {
        let result = try await Self.delivered(chunks.map { Array($0.utf8) })
        #expect(result.messages.map(\.text) == ["a\nb"], "\(result.summary)")
    }

    /// One leading BOM is stripped, also when its three bytes come in separate reads.
    @Test func aBOMSplitAcrossReadsIsStripped() async throws {
        let result = try await Self.delivered([[0xEF], [0xBB], [0xBF] + Array("data: a\n\n".utf8)])
        #expect(result.messages.map(\.text) == ["a"], "\(result.summary)")
    }

    /// The event type applies to one event only; the last event ID stays in force for the
    /// events after it; `data` lines are joined with LF.
    @Test func theTypeResetsAfterEachEventAndTheIDCarriesOver() async throws {
        let result = try await Self.delivered([Array("event: price\nid: 7\ndata: a\ndata: b\n\ndata: c\n\n".utf8)])
        #expect(result.messages.map(\.text) == ["a\nb", "c"], "\(result.summary)")
        #expect(result.messages.map(\.type) == ["price", "message"])
        #expect(result.messages.map(\.id) == ["7", "7"])
    }

    /// An event without its blank line when the body ends is discarded, never delivered.
    @Test func anEventWithoutItsBlankLineAtTheEndIsDiscarded() async throws {
        let result = try await Self.delivered([Array("data: whole\n\ndata: pending\n".utf8)])
        #expect(result.summary == "open(1) event(whole) closed(final)")
    }

    /// A block without `data` dispatches no event (WHATWG §9.2.6: an empty data buffer).
    @Test func aBlockWithoutDataIsNoEvent() async throws {
        let result = try await Self.delivered([Array("event: ping\n\ndata:\n\n".utf8)])
        #expect(result.messages.map(\.text) == [""], "only the block with a data line: \(result.summary)")
        #expect(result.messages.map(\.type) == ["message"], "the type of the empty block does not carry over")
    }

    /// With `strictUTF8`, a code point split across reads is valid and arrives whole.
    @Test func aCodePointSplitAcrossReadsIsValidUnderStrictUTF8() async throws {
        let e = Array("é".utf8)
        let result = try await Self.delivered([Array("data: caf".utf8) + [e[0]], [e[1]] + Array("\n\n".utf8)]) {
            $0.sse.strictUTF8 = true
        }
        #expect(result.summary == "open(1) event(café) closed(final)")
    }

    /// With `strictUTF8`, invalid UTF-8 in `event` or `id` fails the attempt with
    /// `invalid_utf8` like invalid data does.
    @Test(arguments: ["event", "id"]) func invalidUTF8InAnyFieldFailsAStrictStream(field: String) async throws {
        let bytes = Array("\(field): a".utf8) + [0xFF] + Array("\ndata: x\n\n".utf8)
        let result = try await Self.delivered([bytes]) { $0.sse.strictUTF8 = true; $0.reconnect = .never }
        #expect(result.summary == "open(1) error(invalid_utf8,stop) closed(final)")
    }

    /// `invalid_utf8` is a protocol error: by default it is retried with backoff, and the next
    /// attempt resumes after the last event delivered.
    @Test func invalidUTF8IsRetriedFromTheCursor() async throws {
        let t = try EmbeddedClient { $0.sse.strictUTF8 = true }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("good", id: "1")
        first.send(Array("id: 2\ndata: ".utf8) + [0xC3, 0x28] + Array("\n\n".utf8))
        await rec.waitFor(4)
        #expect(rec.summary == "open(1) event(good) error(invalid_utf8,retry) closed(reconnect)")
        #expect(rec.events.compactMap(\.errorEvent).first?.error.failureClass == .protocol)
        await t.waitOutTheBackoff()
        #expect(try await t.sseAttempt(2).request.lastEventID == "1")
    }
    /// Field names are case-sensitive, a line without a colon is a field with an empty value,
    /// and an empty `event` is the default type.
    @Test func fieldNamesAreExactAndALoneNameHasAnEmptyValue() async throws {
        let result = try await Self.delivered([Array("Data: lost\nevent:\ndata\ndata:x\n\n".utf8)])
        #expect(result.messages.map(\.text) == ["\nx"], "\(result.summary)")
        #expect(result.messages.map(\.type) == ["message"])
    }
}
#endif
