#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// A bandwidth-limited link (issue 5, see ``FaultRig``): `tc tbf` at 256 kbit/s on the
/// server's side of the veth. A large stream completes with every message exactly once, and
/// the measured goodput is close to the configured rate. Root only.
@Suite(.serialized) struct FaultBandwidthTests {
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
            let startedAt = ContinuousClock.now
            let log = FaultEventLog(client, lastID: count)
            try await bounded("all \(count) messages: \(log.summary)", seconds: 20) { log.lastID == count }

            // Every message byte from the start (connecting on a veth takes milliseconds) to
            // the last message: a late consumer only lengthens the time (lowers the ratio); the
            // tbf burst (4 KiB) can raise it ~4 %.
            let messages = log.entries.compactMap { e -> Int? in if case .event(let m) = e.event { m.bytes.count } else { nil } }
            let lastAt = try #require(log.lastMessage(before: .now + .seconds(1)))
            let elapsed = lastAt - startedAt
            let bytes = messages.reduce(0, +)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let goodput = Double(bytes) * 8 / seconds
            let ratio = goodput / rateBitsPerSecond
            print("Fault \(kind) tbf 256 kbit/s: \(count) × ~\(pad) B (\(bytes) B) in \(elapsed), goodput \(Int(goodput / 1000)) kbit/s = \(Int(ratio * 100)) % of the rate (the rest is TCP/IP/Ethernet and framing)")
            #expect(log.ids == Array(1...count), "every message exactly once: \(log.summary)")
            #expect(log.errors.isEmpty, "\(log.summary)")
            // Headers cost a few % at this message size; much less would mean a slow client,
            // well above the rate would mean the shaper is not in the path.
            #expect(ratio > 0.7 && ratio < 1.05, "goodput \(Int(goodput)) bit/s vs tbf \(Int(rateBitsPerSecond)) bit/s")
        }
    }
}
#endif
