import Foundation
import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// The resume cursor is what the consumer *processed*, not what was received.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientResumeTests {
    @Test func cursorAdvancesWhenTheConsumerAsksForTheNextEvent() async throws {
        let t = try TestClient()
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        first.message("b", id: "2")
        first.message("c", id: "3")
        first.fail(RealtimeError(.network))

        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(a)")
        #expect(t.client.lastEventID == nil, "received, not processed yet")
        #expect(await it.next()?.short == "event(b)")
        #expect(t.client.lastEventID == "1")
        // Events 3, the error and the close are received (buffered) but not processed: the
        // reconnect waits for the consumer even after the backoff delay.
        await t.advance(by: .seconds(1))
        await t.waitForState("waiting for the consumer") { $0.isWaitingToRetry }
        #expect(t.clock.sleeperCount == 0, "the delay is over")
        #expect(t.factory.count == 1, "must not reconnect before the consumer caught up")
        #expect(await it.next()?.short == "event(c)")
        #expect(t.client.lastEventID == "2")
        #expect(await it.next()?.short == "error(network,retry)")
        #expect(t.client.lastEventID == "3")
        #expect(await it.next()?.short == "closed(reconnect)")
        // The consumer has processed everything it got: acknowledging lets the loop go on.
        await t.client.acknowledge()
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "3")
        second.open()
        second.message("d", id: "4")
        #expect(await it.next()?.short == "open(2)")
        #expect(await it.next()?.short == "event(d)")
        await t.client.acknowledge()
        #expect(t.client.lastEventID == "4")
    }

    @Test func eventsWithoutIDKeepTheCursor() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "7")
        first.emit(.message(.sse(type: "message", data: "b", id: "7")))
        first.fail(RealtimeError(.network))
        await rec.waitFor(5)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "7")
    }

    @Test func emptyIDResetsTheCursor() async throws {
        let t = try TestClient { $0.lastEventID = "start" }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.lastEventID == "start")
        first.open()
        first.message("a", id: "")  // WHATWG: an empty id resets the last event ID
        first.fail(RealtimeError(.network))
        await rec.waitFor(4)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "")
    }

    @Test func cursorStoreLoadsAndSavesInOrder() async throws {
        let saved = LockedValue<[String]>([])
        let t = try TestClient {
            $0.cursorStore = CursorStore(load: { "41" }, save: { id in saved.withLock { $0.append(id) } })
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.lastEventID == "41")
        first.open()
        for i in 42...45 { first.message("m\(i)", id: "\(i)") }
        first.endCleanly()
        await rec.waitFor(6)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "45")
        #expect(saved.withLock { $0 } == ["42", "43", "44", "45"])
    }

    /// The next event waits for the save of the cursor before it: a consumer never runs ahead
    /// of what the store holds.
    @Test func theNextEventWaitsForTheSave() async throws {
        let order = LockedValue<[String]>([])
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let t = try TestClient {
            $0.cursorStore = CursorStore(load: { nil }, save: { id in
                order.withLock { $0.append("save \(id) begins") }
                startedSignal.yield()
                for await _ in release { break }
                order.withLock { $0.append("save \(id) ends") }
            })
        }
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        first.message("b", id: "2")
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

    /// `load` runs once, before the first connection: not again for a suspend and resume, a
    /// restart or a reconnect.
    @Test func theStoreIsLoadedOnce() async throws {
        let loads = LockedValue(0)
        let t = try TestClient { $0.cursorStore = CursorStore(load: { loads.withLock { $0 += 1 }; return "7" }, save: { _ in }) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(RealtimeError(.network))
        await rec.waitFor(2)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "7")
        t.client.suspend()
        t.client.resume()
        let third = try #require(await t.factory.transport(2))
        t.client.restart()
        let fourth = try #require(await t.factory.transport(3))
        #expect(third.request.lastEventID == "7" && fourth.request.lastEventID == "7")
        #expect(loads.withLock { $0 } == 1)
    }

    /// `resumeURL` applies to SSE too: the next attempt goes to the URL built from the
    /// processed cursor and still sends it as `Last-Event-ID`.
    @Test func resumeURLAppliesToSSEBesideLastEventID() async throws {
        let t = try TestClient {
            $0.resumeURL = { url, cursor in
                cursor.map { URL(string: url.absoluteString + "?after=\($0)")! } ?? url
            }
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.url.query == nil && first.request.lastEventID == nil)
        first.open()
        first.message("a", id: "5")
        first.fail(RealtimeError(.network))
        await rec.waitFor(4)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.url.query == "after=5")
        #expect(second.request.lastEventID == "5")
    }

    @Test func configuredCursorWinsOverTheStore() async throws {
        let t = try TestClient {
            $0.lastEventID = "9"
            $0.cursorStore = CursorStore(load: { "1" }, save: { _ in })
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.lastEventID == "9")
        _ = rec
    }

    /// Many cuts: every id arrives exactly once and in order.
    @Test func randomCutsNeverLoseOrDuplicate() async throws {
        let t = try TestClient { $0.backoff = .immediate }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        var next = 1
        let total = 200
        var attempt = 0
        var rng = SeededGenerator(seed: 5)
        while next <= total {
            let transport = try #require(await t.factory.transport(attempt))
            // The server resumes after the cursor it was given.
            let resumeFrom = transport.request.lastEventID.flatMap(Int.init) ?? 0
            #expect(resumeFrom == next - 1)
            transport.open()
            let burst = Int(rng.next() % 17)
            for id in next..<min(total + 1, next + burst) {
                transport.message("\(id)", id: "\(id)")
                next = id + 1
            }
            transport.fail(RealtimeError(.remoteClosed))
            attempt += 1
            await t.advance(by: BackoffPolicy.minimumDelay)
        }
        _ = try #require(await t.factory.transport(attempt))
        let ids = rec.events.compactMap { e -> Int? in
            if case .event(let m) = e { return Int(m.text ?? "") }
            return nil
        }
        #expect(ids == Array(1...total))
        #expect(t.factory.overlapping == 0)
    }
}
