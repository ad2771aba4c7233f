#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The parser's limits (`SSEOptions.limits`) as the user of ``RealtimeClient`` sees them:
/// which error, whether it is retried, what was delivered before it, and what the next
/// attempt sends.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientSSELimitTests {
    /// The messages a recorder holds, in order.
    static func messages(_ rec: EventRecorder) -> [Message] {
        rec.events.compactMap { if case .event(let m) = $0 { m } else { nil } }
    }

    /// A line longer than `maxLineLength` ends the attempt with `line_too_long`, and the client
    /// stops: the same line would come again. The events before it were delivered.
    @Test func aLineOverTheLimitStopsWithLineTooLong() async throws {
        let t = try EmbeddedClient { $0.sse.limits = SSEParser.Limits(maxLineLength: 20, maxEventSize: 100) }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("ok", id: "1")
        first.send("data: " + String(repeating: "x", count: 15))  // 21 bytes, no line break yet
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(ok) error(line_too_long,stop) closed(final)")
        let error = try #require(rec.events.compactMap(\.errorEvent).first)
        #expect(error.error.failureClass == .limit && error.retryIn == nil)
        #expect(t.connectionCount == 1)
        t.run()
        #expect(t.loop.pendingTimerCount == 0, "no backoff armed")
    }

    /// A line of exactly `maxLineLength` bytes (its line end not counted) is within the limit.
    @Test func aLineOfExactlyTheLimitIsDelivered() async throws {
        let t = try EmbeddedClient {
            $0.reconnect = .finite
            $0.sse.limits = SSEParser.Limits(maxLineLength: 20, maxEventSize: 100)
        }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        let data = String(repeating: "x", count: 14)
        first.send("data: \(data)\r\n\r\n")  // 20 bytes before the CRLF
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(\(data)) closed(final)")
    }

    /// An event whose data is exactly `maxEventSize` bytes is delivered; one byte more ends
    /// the attempt with `event_too_large`, and nothing of it is delivered.
    @Test(arguments: [10, 11]) func theEventSizeLimitIsInclusive(size: Int) async throws {
        let t = try EmbeddedClient {
            $0.reconnect = .finite
            $0.sse.limits = SSEParser.Limits(maxLineLength: 100, maxEventSize: 10)
        }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event(String(repeating: "x", count: size))
        first.finish()
        await rec.waitUntilFinished()
        let expected = size <= 10 ? "event(xxxxxxxxxx) closed(final)" : "error(event_too_large,stop) closed(final)"
        #expect(rec.summary == "open(1) " + expected)
    }

    /// By default a line may be as long as an event plus `data: `, so one `data:` line can
    /// carry a whole event.
    @Test func aLineMayCarryAWholeEventByDefault() async throws {
        let t = try EmbeddedClient {
            $0.reconnect = .finite
            $0.sse.limits = SSEParser.Limits(maxEventSize: 10)
        }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send("data: 0123456789\n\n")  // a 16-byte line
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(0123456789) closed(final)")
    }

    /// With ``ReconnectPolicy/retriesAfterLimitExceeded`` a limit error is retried with
    /// backoff, and the next attempt resumes after the last event delivered.
    @Test func aLimitErrorIsRetriedWhenThePolicyAllowsIt() async throws {
        let t = try EmbeddedClient {
            $0.reconnect.retriesAfterLimitExceeded = true
            $0.sse.limits = SSEParser.Limits(maxLineLength: 100, maxEventSize: 10)
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("small", id: "1")
        first.event(String(repeating: "x", count: 11), id: "2")
        await rec.waitFor(4)
        #expect(rec.summary == "open(1) event(small) error(event_too_large,retry) closed(reconnect)")
        #expect(rec.events.compactMap(\.errorEvent).first?.retryIn == .seconds(1))
        await t.waitOutTheBackoff()
        #expect(try await t.sseAttempt(2).request.lastEventID == "1")
    }

    /// An `id` of exactly `maxIDLength` bytes becomes the cursor and is sent back as
    /// `Last-Event-ID`; a longer one is ignored, so the cursor keeps the last good id.
    @Test func anIDAtTheLimitIsKeptAndALongerOneIgnored() async throws {
        let t = try EmbeddedClient { $0.sse.limits = SSEParser.Limits(maxIDLength: 4) }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("a", id: "abcd")
        first.event("b", id: "abcde")
        first.reset()
        await rec.waitFor(5)
        #expect(Self.messages(rec).map(\.id) == ["abcd", "abcd"], "\(rec.summary)")
        await t.waitOutTheBackoff()
        #expect(try await t.sseAttempt(2).request.lastEventID == "abcd")
    }
}
#endif
