#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Synchronization
import Testing

/// A bandwidth-limited link (see ``FaultRig``): `tc tbf` at 256 kbit/s on the
/// server's side of the veth. A large stream completes with every message exactly once, and
/// the measured goodput is close to the configured rate. Root only.
@Suite(.serialized, .timeLimit(.minutes(3))) struct FaultBandwidthTests {
    @Test(arguments: FaultRig.Kind.allCases)
    func largeStreamOverASlowLinkCompletesAtTheLinkRate(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("bw", kind) { rig in
            let rateBitsPerSecond = 256_000.0
            try await rig.inServerNamespace(
                "tc", "qdisc", "add", "dev", rig.ns.serverVeth, "root", "tbf",
                "rate", "256kbit", "burst", "4096", "latency", "400ms")
            let count = 96
            let pad = 1000
            try await rig.startServer(count: count, intervalMilliseconds: 0, ["--pad", "\(pad)"])
            let client = try rig.makeClient()
            defer { client.close() }
            let log = FaultEventLog(client, lastID: count)
            // The client counts payload bytes on its I/O thread as they come off the socket;
            // a thread of its own samples that counter, so a consumer or test task that the
            // loaded machine delays does not bend the measurement.
            let samples = LockedValue<[(at: ContinuousClock.Instant, bytes: Int)]>([])
            let sampling = Atomic<Bool>(true)
            _ = WallTime.sample(every: .milliseconds(5)) {
                let bytes = client.statistics.bytes
                samples.withLock { $0.append((.now, bytes)) }
                return sampling.load(ordering: .relaxed)
            }
            try await bounded("all \(count) messages: \(log.summary)", seconds: 20) { log.lastID == count }
            let total = client.statistics.bytes
            try await bounded("the sampler to see all \(total) bytes", seconds: 5) {
                samples.withLock { $0.last?.bytes == total }
            }
            sampling.store(false, ordering: .relaxed)
            let series = samples.withLock { $0 }
            // From the first sample that saw bytes (the tbf burst and the socket buffers are
            // already in by then) to the first that saw them all.
            let first = try #require(series.first { $0.bytes > 0 })
            let last = try #require(series.first { $0.bytes == total })
            let elapsed = last.at - first.at
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let goodput = Double(total - first.bytes) * 8 / seconds
            let ratio = goodput / rateBitsPerSecond
            print("Fault \(kind) tbf 256 kbit/s: \(count) × ~\(pad) B (\(total) B) in \(elapsed), goodput \(Int(goodput / 1000)) kbit/s = \(Int(ratio * 100)) % of the rate (the rest is TCP/IP/Ethernet and framing)")
            #expect(log.ids == Array(1...count), "every message exactly once: \(log.summary)")
            #expect(log.errors.isEmpty, "\(log.summary)")
            // Headers cost a few % at this message size; much less would mean a slow client,
            // above the rate would mean the shaper is not in the path (5 ms sampling: ±0.2 %).
            #expect(ratio > 0.8 && ratio < 1.03, "goodput \(Int(goodput)) bit/s vs tbf \(Int(rateBitsPerSecond)) bit/s")
        }
    }
}
#endif
