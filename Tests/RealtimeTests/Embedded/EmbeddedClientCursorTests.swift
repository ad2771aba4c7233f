#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The resume cursor over the production SSE connection on the embedded stack: it is what the
/// consumer *processed*, not what was received; an event without an id keeps it, an empty id
/// resets it; a cursor store is loaded once and saved in order, each save before the next
/// event; `resumeURL` and a configured cursor.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientCursorTests {
    @Test func theCursorAdvancesWhenTheConsumerAsksForTheNextEvent() async throws {
        let t = try EmbeddedClient()
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.event("a", id: "1")
        first.event("b", id: "2")
        first.event("c", id: "3")
        first.reset()

        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(a)")
        #expect(t.client.lastEventID == nil, "received, not processed yet")
        #expect(await it.next()?.short == "event(b)")
        #expect(t.client.lastEventID == "1")
        // Event 3, the error and the close are received (buffered) but not processed: the
        // reconnect waits for the consumer even after the backoff delay.
        await t.waitOutTheBackoff()
        #expect(t.loop.pendingTimerCount == 0, "the delay is over")
        #expect(t.connectionCount == 1, "must not reconnect before the consumer caught up")
        #expect(await it.next()?.short == "event(c)")
        #expect(t.client.lastEventID == "2")
        #expect(await it.next()?.short == "error(network,retry)")
        #expect(t.client.lastEventID == "3")
        #expect(await it.next()?.short == "closed(reconnect)")
        // The consumer has processed everything it got: acknowledging lets the client go on.
        await t.client.acknowledge()
        await t.waitForState("attempt 2") { $0 == .connecting(attempt: 2) }
        let second = try #require(t.sse(1))
        #expect(second.request.lastEventID == "3")
        second.respond()
        second.event("d", id: "4")
        #expect(await it.next()?.short == "open(2)")
        #expect(await it.next()?.short == "event(d)")
        await t.client.acknowledge()
        #expect(t.client.lastEventID == "4")
    }

    /// Plays one connection: `events` (data, id) then a reset; returns the next attempt's
    /// server once the backoff is waited out.
    private static func cut(
        _ t: EmbeddedClient, _ rec: EventRecorder, events: [(String, String?)], expecting count: Int
    ) async throws -> EmbeddedSSEServer {
        let first = try await t.openedSSE()
        for (data, id) in events { first.event(data, id: id) }
        first.reset()
        await rec.waitFor(count)
        await t.waitOutTheBackoff()
        await t.waitForState("attempt 2") { $0 == .connecting(attempt: 2) }
        return try #require(t.sse(1))
    }

    @Test func anEventWithoutAnIDKeepsTheCursor() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let second = try await Self.cut(t, rec, events: [("a", "7"), ("b", nil)], expecting: 5)
        let ids = rec.events.compactMap { if case .event(let m) = $0 { m.id } else { nil } }
        #expect(ids == ["7", "7"], "the id field persists (WHATWG)")
        #expect(second.request.lastEventID == "7")
    }

    /// An SSE comment has no id and never moves the cursor, even when `messageID` would read
    /// one from its text: the next attempt resumes from the last event.
    @Test(arguments: [false, true]) func aCommentCarriesNoIDAndKeepsTheCursor(readsIDs: Bool) async throws {
        let t = try EmbeddedClient {
            $0.sse.reportsComments = true
            if readsIDs { $0.messageID = { $0.text } }
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.event("5", id: "5")
        first.send(": 999\n\n")
        first.reset()
        await rec.waitFor(5)
        await t.waitOutTheBackoff()
        let messages = rec.events.compactMap(\.message)
        #expect(messages.map(\.isComment) == [false, true])
        #expect(messages.map(\.id) == ["5", nil])
        #expect(try await t.sseAttempt(2).request.lastEventID == "5")
    }

    @Test func anEmptyIDResetsTheCursor() async throws {
        let t = try EmbeddedClient { $0.lastEventID = "start" }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        #expect(try #require(t.sse(0)).request.lastEventID == "start")
        let second = try await Self.cut(t, rec, events: [("a", "")], expecting: 4)
        #expect(second.request.lastEventID == "")
    }

    @Test func theCursorStoreIsLoadedThenSavedInOrder() async throws {
        let saved = LockedValue<[String]>([])
        let t = try EmbeddedClient {
            $0.cursorStore = CursorStore(load: { "41" }, save: { id in saved.withLock { $0.append(id) } })
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        #expect(first.request.lastEventID == "41")
        first.respond()
        for i in 42...45 { first.event("m\(i)", id: "\(i)") }
        first.finish()
        await rec.waitFor(6)
        await t.waitOutTheBackoff()
        await t.waitForState("attempt 2") { $0 == .connecting(attempt: 2) }
        #expect(try #require(t.sse(1)).request.lastEventID == "45")
        #expect(saved.withLock { $0 } == ["42", "43", "44", "45"])
    }

    /// The next event waits for the save of the cursor before it: a consumer never runs ahead
    /// of what the store holds.
    @Test func theNextEventWaitsForTheSave() async throws {
        let order = LockedValue<[String]>([])
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let t = try EmbeddedClient {
            $0.cursorStore = CursorStore(load: { nil }, save: { id in
                order.withLock { $0.append("save \(id) begins") }
                startedSignal.yield()
                for await _ in release { break }
                order.withLock { $0.append("save \(id) ends") }
            })
        }
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.event("a", id: "1")
        first.event("b", id: "2")
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(a)")
        let next = Task { [it] in
            var it = it
            let event = await it.next()?.short
            order.withLock { $0.append("got \(event ?? "nil")") }
        }
        for await _ in started { break }
        for _ in 0..<1_000 { await Task.yield() }
        #expect(order.withLock { $0 } == ["save 1 begins"], "event b is held while its predecessor is saved")
        releaseSignal.yield()
        await next.value
        #expect(order.withLock { $0 } == ["save 1 begins", "save 1 ends", "got event(b)"])
    }

    /// `load` runs once, before the first connection: not again for a reconnect, a suspend and
    /// resume, or a restart.
    @Test func theStoreIsLoadedOnce() async throws {
        let loads = LockedValue(0)
        let t = try EmbeddedClient {
            $0.cursorStore = CursorStore(load: { loads.withLock { $0 += 1 }; return "7" }, save: { _ in })
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let second = try await Self.cut(t, rec, events: [], expecting: 3)
        #expect(second.request.lastEventID == "7")
        t.client.suspend()
        await t.waitForState("suspended") { $0 == .suspended }
        t.client.resume()
        await t.network.waitForTransport(2)
        t.client.restart()
        await t.network.waitForTransport(3)
        let third = try #require(t.sse(2))
        let fourth = try #require(t.sse(3))
        #expect(third.request.lastEventID == "7" && fourth.request.lastEventID == "7")
        #expect(loads.withLock { $0 } == 1)
    }

    /// `resumeURL` applies to SSE too: the next attempt goes to the URL built from the
    /// processed cursor and still sends it as `Last-Event-ID`.
    @Test func resumeURLAppliesToSSEBesideLastEventID() async throws {
        let t = try EmbeddedClient {
            $0.resumeURL = { url, cursor in
                cursor.map { URL(string: url.absoluteString + "?after=\($0)")! } ?? url
            }
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        #expect(first.request.url.query == nil && first.request.lastEventID == nil)
        let second = try await Self.cut(t, rec, events: [("a", "5")], expecting: 4)
        #expect(second.request.url.query == "after=5")
        #expect(second.request.lastEventID == "5")
    }

    @Test func aConfiguredCursorWinsOverTheStore() async throws {
        let t = try EmbeddedClient {
            $0.lastEventID = "9"
            $0.cursorStore = CursorStore(load: { "1" }, save: { _ in })
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        #expect(try #require(t.sse(0)).request.lastEventID == "9")
        _ = rec
    }
}
#endif
