#if os(Linux)
import Foundation
@_spi(Transport) import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket

/// A server that sends `retry: 0` once and then fails must not be retried in a tight loop:
/// the hint sets the base delay, failures in a row still back off exponentially, and no delay
/// is below the 100 ms floor. Real client, real sockets, loopback; the client's timers run on
/// a manual clock, so "it waited the delay" is exact: no attempt until the test moves the
/// clock by the whole delay.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientRetryStormTests {
    enum Failure: String, CaseIterable, Sendable {
        /// Later requests are answered 503.
        case status503
        /// The server is gone after the first stream: connections are refused.
        case refused
        /// Later connections are reset before any response.
        case reset
    }

    /// The first request gets `retry: 0` and one event, then a clean end; later ones fail.
    func startServer(_ failure: Failure) throws -> TestServer {
        let server = TestServer()
        server.setHandler(path: "/storm") { response in
            if response.request.attempt == 0 {
                try response.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .chunked)
                try response.write("retry: 0\n\nid: 1\ndata: once\n\n")
                try response.finish()
            } else if failure == .reset {
                response.abort(reset: true)
            } else {
                try response.writeHead(status: 503, headers: ["Content-Type": "text/plain"], framing: .chunked)
                try response.write("overloaded")
                try response.finish()
            }
        }
        try server.start()
        return server
    }

    @Test(arguments: Failure.allCases)
    func retryZeroThenFailuresBackOff(_ failure: Failure) async throws {
        let server = try startServer(failure)
        defer { server.stop() }
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(initial: .seconds(1), maximum: .seconds(30), jitter: .none)
        // The failures under test come at once; a loaded machine (a sanitizer build running
        // every suite) must not add a timed-out first attempt before the stream with `retry: 0`.
        configuration.connectTimeout = .seconds(15)
        let clock = ManualClock()
        let client = try RealtimeClient(
            url: server.url("/storm"), configuration: configuration, clock: clock,
            random: SeededGenerator(seed: 1), transportFactory: RealtimeClient.defaultTransportFactory(configuration: configuration))
        defer { client.close() }
        let retryIn = Observed<[Duration]>([])
        let events = Observed(0)
        let consumer = Task {
            for await event in client.events {
                if case .event = event { events.update { $0 += 1 } }
                if case .error(let e) = event, let d = e.retryIn { retryIn.update { $0.append(d) } }
            }
        }
        defer { consumer.cancel() }
        // Exponential from the 100 ms floor: the clean end after `retry: 0` is retried after
        // 100 ms (no error event), the failures after it wait 200, 400, 800 ms…
        var delays = [BackoffPolicy.minimumDelay]
        for n in 1...4 {
            await clock.waitForSleepers()
            if n == 1, failure == .refused {
                // The server goes away once the first stream was read, before the reconnect:
                // stopped by the test, not by the consumer, which a loaded machine may delay
                // past the moment the clock moves.
                await events.wait("the first stream's event") { $0 >= 1 }
                server.stop()
            }
            #expect(client.statistics.attempts == n, "no attempt before the delay has passed")
            let delay = delays[n - 1]
            clock.advance(by: delay - .milliseconds(1))
            // The sleeper leaves the clock as it fires: still there, the backoff has not ended.
                #expect(clock.sleeperCount == 1 && client.statistics.attempts == n, "not even 1 ms early")
            clock.advance(by: .milliseconds(1))
            await retryIn.wait("failure \(n)") { $0.count >= n }
            delays = [BackoffPolicy.minimumDelay] + retryIn.value
        }
        print("Retry storm (retry: 0, then \(failure.rawValue)): \(client.statistics.attempts) attempts, delays \(delays.prefix(5)) (manual clock)")
        #expect(Array(retryIn.value.prefix(3)) == [200, 400, 800].map { Duration.milliseconds($0) }, "\(retryIn.value)")
        #expect(retryIn.value.allSatisfy { $0 >= BackoffPolicy.minimumDelay })
        #expect(client.statistics.attempts == 5, "one attempt per delay: the first stream and four failures")
    }
}
#endif
