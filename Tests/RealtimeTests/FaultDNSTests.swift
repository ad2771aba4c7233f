#if os(Linux)
import CLinux
import Foundation
import Realtime
import RealtimeTestSupport
import Synchronization
import Testing

/// A host name that does not resolve (RFC 6761 `.invalid`) fails with its own error class,
/// `dnsFailure`, and is retried with backoff (not at once, not given up). The client runs in
/// a private namespace so the lookup never leaves the machine. Root only.
@Suite(.serialized) struct FaultDNSTests {
    @Test func unresolvableNameIsDNSFailureBackedOff() async throws {
        guard let ns = NetnsPair.make(tag: "dn") else { return }
        defer { ns.destroy() }
        let loop = try #require(await ns.makeClientLoop())
        defer { loop.shutdown() }
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(initial: .milliseconds(200), maximum: .seconds(1), jitter: .none)
        configuration.connectTimeout = .seconds(3)
        let sseOptions = configuration.sse
        let client = try RealtimeClient(
            url: URL(string: "http://no-such-host.invalid:8080/sse")!, configuration: configuration,
            clock: ContinuousClock(), random: SystemRandomNumberGenerator(),
            transportFactory: { SSETransport(request: $0, options: sseOptions, eventLoop: loop) })
        defer { client.close() }
        let errors = Mutex<[(ErrorEvent, ContinuousClock.Instant)]>([])
        let consumer = Task {
            for await event in client.events {
                if case .error(let e) = event { errors.withLock { $0.append((e, .now)) } }
                if errors.withLock({ $0.count >= 3 }) { break }
            }
        }
        defer { consumer.cancel() }
        let deadline = ContinuousClock.now + .seconds(15)
        while errors.withLock({ $0.count < 3 }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let seen = errors.withLock { $0 }
        try #require(seen.count >= 3, "three failed attempts within 15 s")
        #expect(seen.allSatisfy { $0.0.error.code == .dnsFailure }, "\(seen.map { $0.0.error.description })")
        #expect(seen.allSatisfy { $0.0.willRetry })
        #expect(seen.map(\.0.retryIn) == [.milliseconds(200), .milliseconds(400), .milliseconds(800)])
        #expect(seen[2].1 - seen[1].1 >= .milliseconds(400), "the second retry waited its backoff")
        #expect(client.statistics.errorsByClass[.dns] ?? 0 >= 3)
        print("Fault dns: \(seen.count) dnsFailure errors, spaced \(seen[1].1 - seen[0].1) and \(seen[2].1 - seen[1].1)")
    }
}
#endif
