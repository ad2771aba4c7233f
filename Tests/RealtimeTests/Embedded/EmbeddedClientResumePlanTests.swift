#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `Configuration.resume` over the production SSE connection on the embedded stack: a POST's
/// reply whose cursor is in the data is resumed by a different request (a GET), every message
/// exactly once, the POST never repeated; `messageID` reads SSE cursors too.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientResumePlanTests {
    typealias Plan = RealtimeClientResumePlanTests

    static func client(_ configure: (inout RealtimeClient.Configuration) -> Void = { _ in }) throws -> EmbeddedClient {
        try EmbeddedClient(Plan.url) {
            $0 = .llm(body: Array("{}".utf8), terminator: .matching(delivered: true) { $0.type == "done" })
            $0.backoff = .exponential(jitter: .none)
            $0.networkMonitor = nil
            $0.resume = Plan.plan
            configure(&$0)
        }
    }

    /// The POST brings the reply's first event and is cut; the resume (attempt 2) brings one
    /// more and is cut too; the backoff after it passes.
    static func cutTwiceWithProgress(_ t: EmbeddedClient) async throws {
        let post = try await t.openedSSE()
        post.event(#"{"id":"r1","seq":0}"#, type: "created")
        post.reset()
        await t.waitOutTheBackoff()
        let progress = try await t.sseAttempt(2)
        progress.respond()
        progress.event(#"{"seq":1,"d":"a"}"#, type: "delta")
        progress.reset()
        await t.waitOutTheBackoff()
    }

    @Test func aCutReplyResumesWithAGetFromItsCursorAndNothingComesTwice() async throws {
        let t = try Self.client()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let post = try await t.openedSSE()
        #expect(post.request.method == "POST")
        post.event(#"{"id":"r1","seq":0}"#, type: "created")
        post.event(#"{"seq":1,"d":"a"}"#, type: "delta")
        post.reset()
        await rec.waitFor("the cut") { $0.closedEvent != nil }
        await t.waitOutTheBackoff()
        let get = try await t.sseAttempt(2)
        #expect(get.request.method == "GET" && get.request.body == nil)
        #expect(get.request.url.absoluteString == "\(Plan.url)/r1?stream=true&starting_after=1")
        #expect(get.request.headers["Content-Type"] == nil && get.request.lastEventID == nil)
        get.respond()
        get.send("event: delta\ndata: {\"seq\":2,\"d\":\"b\"}\n\nevent: done\ndata: {\"seq\":3}\n\n")
        await rec.waitUntilFinished()
        let data = rec.events.compactMap { $0.message?.text }
        #expect(data == [#"{"id":"r1","seq":0}"#, #"{"seq":1,"d":"a"}"#, #"{"seq":2,"d":"b"}"#, #"{"seq":3}"#])
        #expect(rec.events.compactMap { $0.message?.id } == ["r1 0", "r1 1", "r1 2", "r1 3"])
        #expect(t.connectionCount == 2, "one POST, one GET")
        #expect(t.client.lastEventID == "r1 3")
        t.run()
        #expect(get.ended, "the delivered terminator ends the reply and its connection")
    }

    /// The backoff paces the resumes, and a resume that brings new events starts it over: the
    /// delay after a cut that followed progress is the initial one again, while a resume that
    /// brings nothing doubles it. No time passes on any connection, so only progress resets it.
    @Test func aResumeThatBringsNewEventsStartsTheBackoffOver() async throws {
        let t = try Self.client()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        try await Self.cutTwiceWithProgress(t)
        let stalled = try await t.sseAttempt(3)
        stalled.respond()
        stalled.reset()
        await t.waitOutTheBackoff()
        let last = try await t.sseAttempt(4)
        last.respond()
        last.event(#"{"seq":2}"#, type: "done")
        await rec.waitUntilFinished()
        let delays = rec.events.compactMap { $0.errorEvent?.retryIn }
        #expect(delays == [.seconds(1), .seconds(1), .seconds(2)], "after progress the initial delay; after none, double")
        #expect(rec.events.compactMap { $0.message?.id } == ["r1 0", "r1 1", "r1 2"])
    }

    /// An attempt that moved the cursor spends no attempt either: with `maxAttempts: 1`, every
    /// cut that followed progress is resumed, and the first resume that brings nothing and
    /// fails is the end.
    @Test func progressSpendsNoAttemptOfTheLimit() async throws {
        let t = try Self.client { $0.reconnect.maxAttempts = 1 }
        let rec = EventRecorder(t.client)
        try await Self.cutTwiceWithProgress(t)
        EmbeddedClientPolicyTests.answer(try await t.sseAttempt(3), 503)
        await rec.waitUntilFinished()
        let errors = rec.events.compactMap(\.errorEvent)
        #expect(errors.map(\.willRetry) == [true, true, false], "\(rec.summary)")
        #expect(errors.last?.error.code == .retriesExhausted)
        #expect(rec.events.compactMap { $0.message?.id } == ["r1 0", "r1 1"])
        #expect(t.connectionCount == 3)
    }

    /// A comment is not given the plan's cursor and does not move it: a keep-alive comment
    /// whose text looks like an event resumes nothing from it.
    @Test func aCommentHasNoCursorUnderAPlan() async throws {
        let t = try EmbeddedClient(Plan.url) {
            $0 = .llm(body: Array("{}".utf8), terminator: .matching(delivered: true) { $0.type == "done" })
            $0.backoff = .exponential(jitter: .none)
            $0.networkMonitor = nil
            $0.resume = Plan.plan
            $0.sse.reportsComments = true
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let post = try await t.openedSSE()
        post.event(#"{"id":"r1","seq":0}"#, type: "created")
        post.send(#": {"id":"r9","seq":9}"# + "\n\n")
        post.reset()
        await rec.waitFor("the cut") { $0.closedEvent != nil }
        await t.waitOutTheBackoff()
        let get = try await t.sseAttempt(2)
        #expect(get.request.url.absoluteString == "\(Plan.url)/r1?stream=true&starting_after=0")
        #expect(rec.events.compactMap { $0.message?.id } == ["r1 0"], "the comment has no id")
        #expect(rec.events.compactMap { $0.message?.isComment } == [false, true])
    }

    @Test func aReplyCutBeforeItsFirstCursorIsNotRepeated() async throws {
        let t = try Self.client()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        try await t.openedSSE().reset()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) error(request_not_repeatable,stop) closed(final)")
        #expect(t.connectionCount == 1)
    }

    /// A plan whose request returns nil for a cursor cannot resume from it: the attempt fails
    /// with `request_not_repeatable` and the client stops, the POST not sent again.
    @Test func aPlanThatCannotResumeFromTheCursorStopsTheClient() async throws {
        let asked = LockedValue<[String]>([])
        let t = try EmbeddedClient(Plan.url) {
            $0 = .llm(body: Array("{}".utf8), terminator: .matching(delivered: true) { $0.type == "done" })
            $0.backoff = .exponential(jitter: .none)
            $0.networkMonitor = nil
            $0.resume = RealtimeClient.ResumePlan(cursor: Plan.plan.cursor) { _, cursor in
                asked.withLock { $0.append(cursor) }
                return nil
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let post = try await t.openedSSE()
        post.event(#"{"id":"r1","seq":0}"#, type: "created")
        post.reset()
        await t.waitOutTheBackoff()
        await rec.waitUntilFinished()
        #expect(rec.events.first { $0.errorEvent != nil }?.errorEvent?.willRetry == true, "the cut is retried as usual")
        let stop = try #require(rec.events.last { $0.errorEvent != nil }?.errorEvent)
        #expect(stop.error.code == .requestNotRepeatable && !stop.willRetry)
        #expect(stop.error.detail == "the resume plan cannot resume from the cursor")
        #expect(asked.withLock { $0 } == ["r1 0"], "asked once, with the cursor the consumer processed")
        #expect(t.connectionCount == 1, "nothing is sent in place of the resume")
        #expect(t.client.state == .closed(stop.error))
    }

    @Test func messageIDReadsTheCursorOfSSEEventsFromTheirData() async throws {
        let t = try EmbeddedClient("http://peer.test/feed") { $0.messageID = { $0.text.flatMap { Plan.field("seq", $0) } } }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event(#"{"seq":41}"#)
        first.event("no cursor", id: "sse-id")
        first.event(#"{"seq":42}"#)
        await rec.waitFor(4)
        #expect(rec.events.compactMap { $0.message?.id } == ["41", "sse-id", "42"], "the SSE id stays where the data has none")
        first.reset()
        await t.waitOutTheBackoff()
        #expect(try await t.sseAttempt(2).request.lastEventID == "42")
    }
}
#endif
