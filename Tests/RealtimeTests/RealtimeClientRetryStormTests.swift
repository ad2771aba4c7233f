#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// A server that sends `retry: 0` once and then fails must not be retried in a tight loop:
/// the hint sets the base delay, failures in a row still back off exponentially, and no delay
/// is below the 100 ms floor. Real client, real sockets, loopback, wall time (about 2 s per case).
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

    /// When each failure was reported, and the delay it announced.
    struct Failures: Sendable {
        var at: [ContinuousClock.Instant] = []
        var retryIn: [Duration] = []
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
        let client = try RealtimeClient(
            url: server.url("/storm"), configuration: configuration, clock: ContinuousClock(),
            random: SeededGenerator(seed: 1), transportFactory: RealtimeClient.defaultTransportFactory(configuration: configuration))
        defer { client.close() }
        let failures = Observed(Failures())
        let consumer = Task {
            for await event in client.events {
                if case .event = event, failure == .refused { server.stop() }
                if case .error(let e) = event, let d = e.retryIn {
                    failures.update { $0.at.append(.now); $0.retryIn.append(d) }
                }
            }
        }
        defer { consumer.cancel() }
        // Four failures after the stream with `retry: 0`; a loaded machine may take longer,
        // which only lengthens the gaps (the bound below is on what the client asked for).
        await failures.wait("four failures") { $0.at.count >= 4 }
        let seen = failures.value
        let span = seen.at[0].duration(to: seen.at[3])
        let attempts = client.statistics.attempts
        print("Retry storm (retry: 0, then \(failure.rawValue)): \(attempts) attempts; failures 1 to 4 in \(span), delays \(seen.retryIn.prefix(4))")
        // Exponential from the 100 ms floor: the clean end after `retry: 0` is retried after
        // 100 ms (no error event), the failures after it wait 200, 400, 800 ms…
        #expect(Array(seen.retryIn.prefix(3)) == [200, 400, 800].map { Duration.milliseconds($0) }, "\(seen.retryIn)")
        #expect(seen.retryIn.allSatisfy { $0 >= BackoffPolicy.minimumDelay })
        // The client really waited them: no tight loop, whatever the machine's speed.
        // 1,400 ms asked for; the span is taken where the consumer sees the events, which a
        // loaded machine may delay for the first one more than for the last. A client that
        // did not wait would show a few milliseconds.
        #expect(span >= .milliseconds(1000), "failures 1 to 4 are 200 + 400 + 800 ms apart (less the consumer's lag)")
        #expect(attempts <= 6, "one attempt per failure (plus the first stream and one in flight)")
    }
}
#endif
