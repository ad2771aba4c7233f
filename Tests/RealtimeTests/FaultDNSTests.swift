#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// A host name that does not resolve (RFC 6761 `.invalid`) fails with its own error class,
/// `dnsFailure`, and is retried with backoff (not at once, not given up), for both
/// transports. The client runs in a private namespace so the lookup never leaves the
/// machine; its backoff runs on a manual clock, so "waited its backoff" is exact: no new
/// attempt until the test moves the clock by the announced delay. Root only.
@Suite(.serialized, .timeLimit(.minutes(3))) struct FaultDNSTests {
    @Test(arguments: FaultRig.Kind.allCases)
    func unresolvableNameIsDNSFailureBackedOff(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("dn", kind) { rig in
            let host = "no-such-host.invalid:8080"
            let url = URL(string: kind == .sse ? "http://\(host)/sse" : "ws://\(host)/ws")!
            let clock = ManualClock()
            let client = try rig.makeClient(url: url, clock: clock) { c in
                c.backoff = .exponential(initial: .milliseconds(200), maximum: .seconds(1), jitter: .none)
                c.connectTimeout = .seconds(3)
            }
            defer { client.close() }
            let log = FaultEventLog(client)
            for n in 1...3 {
                // Hang guards, not measurements: a lookup of `.invalid` fails in milliseconds.
                try await bounded("failed attempt \(n): \(log.summary)", seconds: 15) { log.errors.count >= n }
                await clock.waitForSleepers()
                let delay = try #require(log.errors[n - 1].event.retryIn)
                #expect(client.statistics.attempts == n, "no attempt before the backoff ends: \(log.summary)")
                clock.advance(by: delay - .milliseconds(1))
                // The sleeper leaves the clock as it fires: still there, the backoff has not ended.
                #expect(clock.sleeperCount == 1 && client.statistics.attempts == n, "not even 1 ms early")
                clock.advance(by: .milliseconds(1))
            }
            try await bounded("the fourth attempt, once the third backoff ended", seconds: 15) { client.statistics.attempts == 4 }
            let seen = log.errors
            #expect(seen.allSatisfy { $0.event.error.code == .dnsFailure }, "\(seen.map { $0.event.error.description })")
            #expect(seen.allSatisfy { $0.event.willRetry })
            #expect(seen.prefix(3).map(\.event.retryIn) == [.milliseconds(200), .milliseconds(400), .milliseconds(800)])
            #expect(client.statistics.errorsByClass[.dns] ?? 0 >= 3)
            print("Fault \(kind) dns: \(seen.count) dnsFailure errors, retry delays \(seen.prefix(3).map { $0.event.retryIn.map { "\($0)" } ?? "nil" }), each attempt only after its delay (manual clock)")
        }
    }
}
#endif
