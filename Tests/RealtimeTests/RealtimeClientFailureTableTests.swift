import Foundation
@_spi(Transport) import Realtime
import Testing
import RealtimeTestSupport
@_spi(Transport) import RealtimeCore

/// Every row of the failure-class table (the Errors article), through the whole client and its
/// state machine, with scripted transports.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientFailureTableTests {
    static let retried: [RealtimeError] = [
        RealtimeError(.network), RealtimeError(.remoteClosed), RealtimeError(.connectTimeout),
        RealtimeError(.idleTimeout), RealtimeError(.dnsFailure), RealtimeError(.heartbeatTimeout),
        .httpStatus(500), .httpStatus(503), .httpStatus(429), .httpStatus(408),
        .protocolViolation("reserved bits"),
    ]

    static let fatal: [RealtimeError] = [
        .httpStatus(400), .httpStatus(403), .httpStatus(404), RealtimeError(.invalidContentType),
        RealtimeError(.tls), RealtimeError(.handshake, detail: "wrong accept"), RealtimeError(.redirect),
        RealtimeError(.eventTooLarge), RealtimeError(.invalidConfiguration),
    ]

    @Test(arguments: retried)
    func retriedWithBackoff(_ error: RealtimeError) async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(error)
        let events = await rec.waitFor(3)
        #expect(events.map(\.short) == ["open(1)", "error(\(error.code),retry)", "closed(reconnect)"])
        let e = try #require(events.at(1)?.errorEvent)
        #expect(e.error == error && e.retryIn == .seconds(1) && e.attempt == 1)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.attempt == 2)
        second.open()
        let later = await rec.waitFor(4)
        #expect(later[3].short == "open(2)")
        #expect(t.factory.overlapping == 0)
    }

    @Test(arguments: fatal)
    func stopsWithAClearError(_ error: RealtimeError) async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.fail(error, delivered: true)
        await rec.waitUntilFinished()
        #expect(rec.events.map(\.short) == ["error(\(error.code),stop)"])
        #expect(rec.events.first?.errorEvent?.error == error)
        #expect(rec.events.first?.errorEvent?.retryIn == nil)
        #expect(t.factory.count == 1)
        #expect(t.clock.sleeperCount == 0)
    }

    @Test func cleanEndReconnectsWithTheCursor() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.lastEventID == nil)
        first.open()
        first.message("a", id: "1")
        first.endCleanly()
        let events = await rec.waitFor(3)
        #expect(events.map(\.short) == ["open(1)", "event(a)", "closed(reconnect)"])
        #expect(events.at(2)?.closeEvent?.clean == true)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "1")
    }

    @Test func finiteStreamStopsAfterACleanEnd() async throws {
        let t = try TestClient { $0.reconnect = .finite }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("done")
        first.endCleanly()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(done) closed(final)")
        #expect(t.factory.count == 1)
    }

    @Test func noContentStops() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.emit(.ended(TransportEnd(clean: true, doNotReconnect: true)))
        await rec.waitUntilFinished()
        // Nothing opened, so nothing closed: the event stream just ends.
        #expect(rec.summary == "")
        #expect(t.factory.count == 1)
        #expect(t.clock.sleeperCount == 0)
    }

    @Test func unreachableWaitsWithoutSpendingAttempts() async throws {
        let t = try TestClient { $0.reconnect = .limited(maxAttempts: 1) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.fail(RealtimeError(.unreachable), delivered: false)
        let events = await rec.waitFor(1)
        #expect(events.at(0)?.short == "error(unreachable,retry)")
        await t.advance(by: .seconds(1))
        #expect(await t.factory.transport(1) != nil)
    }

    @Test func protocolViolationRetriesOrStopsPerPolicy() async throws {
        let t = try TestClient { $0.reconnect.retriesAfterProtocolViolation = false }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(.protocolViolation("masked frame"))
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) error(protocol_violation,stop) closed(final)")
    }

    @Test func unsupportedSchemeFailsBeforeAnyIO() throws {
        let factory = MockTransportFactory()
        for url in ["ftp://example.com/x", "file:///tmp/x", "mailto:a@b.c"] {
            #expect(throws: RealtimeError.self) {
                _ = try RealtimeClient(
                    url: URL(string: url)!, configuration: .init(), clock: ManualClock(),
                    random: SystemRandomNumberGenerator(), transportFactory: factory.make)
            }
        }
        do {
            _ = try RealtimeClient(url: URL(string: "gopher://x")!)
            Issue.record("expected a throw")
        } catch let e as RealtimeError {
            #expect(e.code == .unsupportedScheme)
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(factory.count == 0)
        #expect(RealtimeClient.transportKind(for: URL(string: "HTTPS://x")!) == .sse)
        #expect(RealtimeClient.transportKind(for: URL(string: "wss://x")!) == .webSocket)
        #expect(RealtimeClient.transportKind(for: URL(string: "ws://x")!) == .webSocket)
    }

    @Test func aTransportThatCannotBeBuiltStops() async throws {
        let t = try TestClient()
        t.factory.failEveryAttempt(with: RealtimeError(.invalidConfiguration, detail: "bad CA file"))
        let rec = EventRecorder(t.client)
        await rec.waitUntilFinished()
        #expect(rec.summary == "error(invalid_configuration,stop)")
    }
}
