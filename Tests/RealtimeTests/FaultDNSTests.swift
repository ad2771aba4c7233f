#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// A host name that does not resolve (RFC 6761 `.invalid`) fails with its own error class,
/// `dnsFailure`, and is retried with backoff (not at once, not given up), for both
/// transports. The client runs in a private namespace so the lookup never leaves the
/// machine. Root only.
@Suite(.serialized, .timeLimit(.minutes(3))) struct FaultDNSTests {
    @Test(arguments: FaultRig.Kind.allCases)
    func unresolvableNameIsDNSFailureBackedOff(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("dn", kind) { rig in
            let host = "no-such-host.invalid:8080"
            let url = URL(string: kind == .sse ? "http://\(host)/sse" : "ws://\(host)/ws")!
            let client = try rig.makeClient(url: url) { c in
                c.backoff = .exponential(initial: .milliseconds(200), maximum: .seconds(1), jitter: .none)
                c.connectTimeout = .seconds(3)
            }
            defer { client.close() }
            let startedAt = ContinuousClock.now
            let log = FaultEventLog(client, lastID: nil)
            try await bounded("three failed attempts: \(log.summary)", seconds: 15) { log.errors.count >= 3 }
            let seen = log.errors
            #expect(seen.allSatisfy { $0.event.error.code == .dnsFailure }, "\(seen.map { $0.event.error.description })")
            #expect(seen.allSatisfy { $0.event.willRetry })
            #expect(seen.prefix(3).map(\.event.retryIn) == [.milliseconds(200), .milliseconds(400), .milliseconds(800)])
            // Arrival times may be delayed unevenly on a loaded machine; elapsed time is not.
            #expect(seen[2].at - startedAt >= .milliseconds(600), "the retries waited their backoff (200 + 400 ms)")
            #expect(client.statistics.errorsByClass[.dns] ?? 0 >= 3)
            print("Fault \(kind) dns: \(seen.count) dnsFailure errors, spaced \(seen[1].at - seen[0].at) and \(seen[2].at - seen[1].at)")
        }
    }
}
#endif
