#if os(Linux)
import CCurl
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `RealtimeClient` over the production SSE connection on the embedded stack (one manual
/// loop for the client's timers and the transport's, a scripted libcurl): reconnect after a
/// reset with the backoff and `Last-Event-ID`, the server's `retry:`, the idle timeout, a
/// clean end, a 204, exact resume waiting for the consumer.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientSSETests {
    @Test func aResetIsRetriedAfterTheBackoffFromTheProcessedCursor() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        first.respond()
        first.event("a", id: "1")
        first.event("b", id: "2")
        first.reset()
        await rec.waitFor(5)
        #expect(rec.summary == "open(1) event(a) event(b) error(network,retry) closed(reconnect)")
        await t.waitForTheBackoff()
        t.advance(by: .milliseconds(999))
        #expect(t.connectionCount == 1, "not before the backoff")
        t.advance(by: .milliseconds(1))
        await t.waitForState("attempt 2") { $0 == .connecting(attempt: 2) }
        let second = try #require(t.sse(1))
        #expect(second.request.lastEventID == "2")
        second.respond()
        second.event("c", id: "3")
        await rec.waitFor(7)
        #expect(rec.summary.hasSuffix("open(2) event(c)"))
    }

    @Test func theServersRetryFieldSetsTheNextDelay() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        first.respond()
        first.event("a", id: "1", retry: 7000)
        first.finish()
        await rec.waitFor(3)
        await t.waitForTheBackoff()
        t.advance(by: .milliseconds(6999))
        #expect(t.connectionCount == 1)
        t.advance(by: .milliseconds(1))
        #expect(t.sse(1)?.request.lastEventID == "1")
    }

    @Test func silenceBeyondTheIdleTimeoutIsADeadConnection() async throws {
        let t = try EmbeddedClient { $0.idleTimeout = .seconds(30) }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        first.respond()
        first.event("a", id: "1")
        t.advance(by: .seconds(20))
        first.send(": comment keeps it alive\n\n")
        t.advance(by: .seconds(29))
        #expect(!first.ended, "bytes reset the idle timer")
        t.advance(by: .seconds(1))
        #expect(first.ended)
        await rec.waitFor(4)
        #expect(rec.summary == "open(1) event(a) error(idle_timeout,retry) closed(reconnect)")
    }

    /// Without a response timeout, the connect timeout covers the head too: a server that has
    /// the request but does not answer fails the attempt with `connect_timeout` at 10 s.
    @Test func theConnectTimeoutCoversTheHeadByDefault() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.receiveRequest()
        t.advance(by: .milliseconds(9_999))
        #expect(!first.ended)
        t.advance(by: .milliseconds(1))
        await rec.waitFor(1)
        #expect(rec.summary == "error(connect_timeout,retry)")
    }

    /// `responseTimeout` gives a server that has the request that long for its head, beyond
    /// the connect timeout; a head later than that fails the attempt with `connect_timeout`
    /// "no response head within …".
    @Test func theResponseTimeoutBoundsTheWaitForTheHead() async throws {
        let t = try EmbeddedClient { $0.responseTimeout = .seconds(60) }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.receiveRequest()
        t.advance(by: .seconds(59))
        #expect(!first.ended, "past the connect timeout, within the response timeout")
        t.advance(by: .seconds(1))
        await rec.waitFor(1)
        let error = try #require(rec.events.first?.errorEvent?.error)
        #expect(error.code == .connectTimeout)
        #expect(error.detail == "no response head within 60 s")
    }

    @Test func noContentStopsTheClient() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        first.respond(status: 204, headers: [])
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "")
        #expect(t.client.state == .closed(nil))
        #expect(t.loop.pendingTimerCount == 0, "no timer outlives the client")
    }
}
#endif

#if os(Linux)
/// The client's resume, reconnect and stop rules over the production SSE connection on the
/// embedded stack (what the loopback integration suite checked against a socket, now with the
/// network and the clock in the test's hands).
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientSSEResumeTests {
    @Test func resumesExactlyAcrossRandomCuts() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        var generator = SeededGenerator(seed: 7)
        let cuts = Set((0..<8).map { _ in Int.random(in: 1..<200, using: &generator) })
        let connections = await EmbeddedFeed.play(t, count: 200, cuts: cuts)
        await rec.waitUntilFinished()
        #expect(EmbeddedFeed.ids(rec.events) == Array(1...200), "every id once, in order")
        #expect(EmbeddedFeed.closedPairsWithOpen(rec.events))
        #expect(connections == cuts.count + 2, "one per cut, the clean end's resume answered 204")
        let texts = rec.events.compactMap { if case .event(let m) = $0 { m.text } else { nil } }
        #expect(texts.allSatisfy { $0.hasSuffix(EmbeddedFeed.suffix) }, "every event whole, code points included")
    }

    /// The resume soak: 100 random cuts over a 10,000-event stream.
    @Test func resumeSoakHundredCutsTenThousandEvents() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        var generator = SeededGenerator(seed: 11)
        var cuts = Set<Int>()
        while cuts.count < 100 { cuts.insert(Int.random(in: 1..<10_000, using: &generator)) }
        await EmbeddedFeed.play(t, count: 10_000, cuts: cuts)
        await rec.waitUntilFinished()
        #expect(EmbeddedFeed.ids(rec.events) == Array(1...10_000), "every id exactly once, in order")
        #expect(EmbeddedFeed.closedPairsWithOpen(rec.events))
        #expect(t.client.lastEventID == "10000")
    }

    /// A resume answered with 204 withdraws the reconnect the last `closed` promised.
    @Test func aResumeAnsweredWith204EndsWithoutAnUnpairedClose() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        await EmbeddedFeed.play(t, count: 10, cuts: [4])
        await rec.waitUntilFinished()
        let events = rec.events
        #expect(EmbeddedFeed.ids(events) == Array(1...10))
        #expect(EmbeddedFeed.closedPairsWithOpen(events), "\(rec.summary)")
        #expect(events.last?.errorEvent?.error.code == .streamEnded)
        #expect(events.last?.errorEvent?.error.status == 204 && events.last?.errorEvent?.willRetry == false)
        #expect(events.dropLast().last?.closeEvent?.willReconnect == true)
    }

    @Test func serverErrorsAreRetriedThenTheStreamOpens() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        for attempt in 1...2 {
            await t.waitForState("attempt \(attempt)") { $0 == .connecting(attempt: attempt) }
            let server = try #require(t.sse(attempt - 1))
            server.respond(status: 503, headers: [("Content-Type", "text/plain"), ("Retry-After", "0")])
            server.send("busy")
            server.finish()
            await t.waitForTheBackoff()
            t.advance(by: .seconds(2))
        }
        await t.waitForState("attempt 3") { $0 == .connecting(attempt: 3) }
        let third = try #require(t.sse(2))
        third.respond()
        third.event("a", id: "1")
        await rec.waitFor(4)
        #expect(rec.summary == "error(http_status,retry) error(http_status,retry) open(3) event(a)")
        t.client.close()
    }

    @Test(arguments: [(404, "text/plain", "http_status"), (200, "text/plain", "invalid_content_type"), (401, "text/plain", "unauthorized")])
    func fatalAnswersStop(_ answer: (status: Int, type: String, code: String)) async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let server = try #require(t.sse(0))
        server.respond(status: answer.status, headers: [("Content-Type", answer.type)])
        server.send("no")
        server.finish()
        await rec.waitUntilFinished()
        #expect(rec.events.count == 1)
        #expect(rec.events.first?.errorEvent?.willRetry == false)
        #expect(rec.events.first?.errorEvent?.error.code.description == answer.code)
        #expect(t.connectionCount == 1 && t.loop.pendingTimerCount == 0)
    }

    @Test func postIsNotRepeatedAfterACut() async throws {
        let t = try EmbeddedClient {
            $0.method = "POST"
            $0.body = Array("{}".utf8)
        }
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let server = try #require(t.sse(0))
        #expect(server.request.method == "POST" && server.request.body == Array("{}".utf8))
        server.respond()
        server.event("a", id: "1")
        server.reset()
        await rec.waitUntilFinished()
        #expect(rec.events.contains { $0.errorEvent?.error.code == .requestNotRepeatable })
        #expect(t.connectionCount == 1)
        #expect(t.client.statistics.errorsByClass == [.network: 1], "counted under the class of its cause")
    }

    @Test func closeStopsALiveStream() async throws {
        let t = try EmbeddedClient()
        var it = t.client.events.makeAsyncIterator()
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let server = try #require(t.sse(0))
        server.respond()
        server.event("event 1", id: "1")
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(event 1)")
        t.client.close()
        t.run()
        #expect(await it.next() == nil)
        #expect(server.ended && t.loop.pendingTimerCount == 0, "the transfer is freed, no timer outlives the client")
    }
}
#endif

#if os(Linux)
/// What `reconnectionTime` reports as a stream changes it. (The Testing article's program:
/// `RealtimeTestingProductTests`.)
@Suite(.timeLimit(.minutes(1))) struct ReconnectionTimeTests {
    /// A `retry:` changes `reconnectionTime` before the events that follow it are delivered.
    @Test func reconnectionTimeChangesBeforeTheEventsAfterARetryField() async throws {
        let t = try EmbeddedClient()
        let seen = Observed<[Duration]>([])
        let consumer = Task { [client = t.client] in
            try await client.consume { event, context in
                guard case .event(let m) = event else { return }
                seen.update { $0.append(client.reconnectionTime) }
                if m.text == "after" { context.stop() }
            }
        }
        let first = try await t.openedSSE()
        first.send("data: before\n\n")
        await seen.wait("the first event") { $0.count == 1 }
        first.send("retry: 2500\ndata: after\n\n")
        try await consumer.value
        #expect(seen.value == [.seconds(1), .milliseconds(2500)])
    }
}
#endif
