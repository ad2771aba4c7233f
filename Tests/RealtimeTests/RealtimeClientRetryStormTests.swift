#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// A server that sends `retry: 0` once and then fails must not be retried in a tight loop:
/// the hint sets the base delay, failures in a row still back off exponentially, and no delay
/// is below the 100 ms floor. Real client, real sockets, loopback, wall time (3 s per case).
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientRetryStormTests {
    enum Failure: String, CaseIterable, Sendable {
        /// Later requests are answered 503.
        case status503
        /// The server is gone after the first stream: connections are refused.
        case refused
        /// Later connections are reset before any response.
        case reset
    }

    static let window = Duration.seconds(3)

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
        configuration.connectTimeout = .seconds(2)
        let client = try RealtimeClient(
            url: server.url("/storm"), configuration: configuration, clock: ContinuousClock(),
            random: SeededGenerator(seed: 1), transportFactory: RealtimeClient.defaultTransportFactory(configuration: configuration))
        defer { client.close() }
        let retryIns = LockedValue<[Duration]>([])
        let consumer = Task {
            for await event in client.events {
                if case .event = event, failure == .refused { server.stop() }
                if case .error(let e) = event, let d = e.retryIn { retryIns.withLock { $0.append(d) } }
            }
        }
        defer { consumer.cancel() }
        try await Task.sleep(for: Self.window)
        let attempts = client.statistics.attempts
        let delays = retryIns.withLock { $0 }
        print("Retry storm (retry: 0, then \(failure.rawValue)): \(attempts) attempts in \(Self.window) (\(Double(attempts) / 3) per second); delays \(delays)")
        // Exponential from the 100 ms floor: 0.1, 0.2, 0.4, 0.8, 1.6 s… so within 3 s the
        // first attempt and at most 5 retries (one more of slack for a loaded machine).
        #expect(attempts >= 3, "it does retry")
        #expect(attempts <= 7, "bounded: no tight loop after retry: 0")
        #expect(delays.allSatisfy { $0 >= BackoffPolicy.minimumDelay })
        // The clean end after `retry: 0` is retried after 100 ms (no error event); the
        // failures after it wait 200, 400, 800 ms…
        #expect(Array(delays.prefix(3)) == [200, 400, 800].map { Duration.milliseconds($0) }, "\(delays)")
    }
}
#endif
