#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// A bandwidth-limited link (see ``FaultRig``): `tc tbf` at 256 kbit/s on the
/// server's side of the veth. A large stream completes with every message exactly once and no
/// error, and no faster than the shaper lets it (which proves the shaper is in the path).
/// Root only.
///
/// Only that bound is asserted: a loaded machine can make the client finish later, never
/// sooner. How close the client comes to the rate is printed, not asserted (how fast the
/// client reads is the benchmarks' business).
@Suite(.serialized, .timeLimit(.minutes(3))) struct FaultBandwidthTests {
    @Test(arguments: FaultRig.Kind.allCases)
    func largeStreamOverASlowLinkArrivesWholeAndNoFasterThanTheLink(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("bw", kind) { rig in
            let rateBitsPerSecond = 256_000.0
            let burstBytes = 4096
            try await rig.inServerNamespace(
                "tc", "qdisc", "add", "dev", rig.ns.serverVeth, "root", "tbf",
                "rate", "256kbit", "burst", "\(burstBytes)", "latency", "400ms")
            let count = 96
            let pad = 1000
            try await rig.startServer(count: count, intervalMilliseconds: 0, ["--pad", "\(pad)"])
            // Before the client exists: nothing of the stream can have crossed the link yet.
            let started = ContinuousClock.now
            let client = try rig.makeClient()
            defer { client.close() }
            let log = FaultEventLog(client)
            try await bounded("all \(count) messages: \(log.summary)", seconds: 20) { log.lastID == count }
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let payload = client.statistics.bytes
            // The payload alone, without the headers and framing that also cross the link,
            // after the bucket's first burst, cannot pass the shaper faster than its rate.
            let fastest = Double(payload - burstBytes) * 8 / rateBitsPerSecond
            print("Fault \(kind) tbf 256 kbit/s: \(count) × ~\(pad) B (\(payload) B) in \(elapsed), payload \(Int(Double(payload) * 8 / seconds / 1000)) kbit/s (the rest is TCP/IP/Ethernet and framing)")
            #expect(log.ids == Array(1...count), "every message exactly once: \(log.summary)")
            #expect(log.errors.isEmpty, "\(log.summary)")
            #expect(payload >= count * pad, "\(payload) payload bytes")
            #expect(seconds >= fastest, "\(payload) B in \(elapsed): faster than the shaper allows (\(fastest) s), so it is not in the path")
        }
    }
}
#endif
