#if os(Linux)
import Foundation
@_spi(Transport) import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket

/// A path change under a live connection: the client's interface keeps a second
/// address, and the one its connection is bound to is deleted. The network is still usable,
/// so nothing reports a loss, and the server's packets to the vanished address are dropped
/// without a word. The client must notice by its path-change probe
/// (``RealtimeClient/Configuration/pathChangeProbeTimeout``), not its 30 s idle timeout — the
/// error's detail names which one fired, and the wait is bounded well below 30 s — then
/// reconnect from the remaining address and resume without loss. The probe's timing is the
/// transports' own (tested on the embedded loop); the measured figure is printed.
/// Root only (skips with a printed reason otherwise).
@Suite(.timeLimit(.minutes(3)))
struct FaultPathChangeTests {
    @Test(arguments: FaultRig.Kind.allCases)
    func deletedSourceAddressIsFoundWithinTheProbeTimeout(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("pc", kind) { rig in
            // A second address in another prefix, so deleting the first leaves it (and its
            // route to the server) in place; the server routes replies to it.
            try await rig.ns.ip(rig.ns.client, "addr", "add", "10.250.0.5/24", "dev", rig.ns.clientVeth)
            try await rig.ns.ip(rig.ns.server, "route", "add", "10.250.0.5/32", "dev", rig.ns.serverVeth)
            let count = 40
            try await rig.startServer(count: count, intervalMilliseconds: 250)
            let loop = rig.loop
            let monitor: LinuxNetworkMonitor = await loop.submit { LinuxNetworkMonitor(eventLoop: loop) }
            defer { monitor.stop() }
            let probe = Duration.milliseconds(1500)
            let client = try rig.makeClient {
                $0.networkMonitor = monitor
                $0.idleTimeout = .seconds(30)
                $0.pathChangeProbeTimeout = probe
            }
            defer { client.close() }
            let log = FaultEventLog(client)

            try await bounded("a few messages", seconds: 10) { log.ids.count >= 4 }
            let errorsBefore = log.errors.count
            let opensBefore = log.opens.count
            let deletedAt = ContinuousClock.now
            try await rig.ns.ip(rig.ns.client, "addr", "del", "\(NetnsPair.clientAddress)/30", "dev", rig.ns.clientVeth)
            // Hang guards, well below the 30 s idle timeout.
            try await bounded("the dead connection to be noticed", seconds: 10) {
                log.errors.dropFirst(errorsBefore).contains { $0.event.error.code == .idleTimeout }
            }
            let found = try #require(log.errors.dropFirst(errorsBefore).first { $0.event.error.code == .idleTimeout })
            try await bounded("a reconnect from the remaining address", seconds: 10) { log.opens.count > opensBefore }
            let reopened = log.opens[opensBefore]
            try await bounded("all \(count) messages", seconds: 20) { log.lastID == count }

            let ids = log.ids
            print("Fault \(kind) path change: source address deleted → found dead after \(found.at - deletedAt) (probe \(probe), idle timeout 30 s; \(found.event.error)), reopened \(reopened - found.at) later; \(ids.count) messages")
            #expect(found.event.error.detail?.contains("after the network path changed") == true, "found by the probe, not the idle timeout: \(found.event.error.detail ?? "")")
            #expect(ids == Array(1...count), "no lost or duplicated message")
        }
    }
}
#endif
