import Foundation
@_spi(Transport) import Realtime
import Testing
import RealtimeTestSupport
@_spi(Transport) import RealtimeCore

/// What the failure table cannot get from a real failure on the embedded stack, through the
/// whole client with scripted transports: an unreachable network (it spends no attempt), a
/// scheme no transport takes, a transport that cannot be built. (Every other row, from a real
/// failure: `EmbeddedClientFailureTableTests`.)
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientFailureTableTests {
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
