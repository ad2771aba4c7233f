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

/// Fault injection on real network namespaces (see ``FaultRig``): the server runs
/// in one namespace, the client in another — its I/O loop thread entered the client
/// namespace with setns(2), so every socket it makes lives there — joined by a veth pair.
/// Root only: without it the suite prints why and skips. Every wait is bounded.
@Suite(.serialized, .timeLimit(.minutes(3))) struct FaultLinkDownTests {
    /// One stream of `count` messages, with the **default configuration** (reachability on:
    /// the monitor of the client's loop, which watches the client namespace); the client's
    /// own interface goes down mid-stream for 1.5 s: the client reports the loss once, makes
    /// no attempt while down, reconnects when the kernel reports the link back — with its
    /// backoff on a manual clock that never moves, nothing but the network monitor can start
    /// that attempt — and nothing is lost or duplicated. The kernel's part (carrier through
    /// linkwatch, up to 1 s) and the client's are printed.
    @Test(arguments: FaultRig.Kind.allCases)
    func linkDownMidStream(_ kind: FaultRig.Kind) async throws {
        try await FaultRig.run("ld", kind) { rig in
            let count = 150
            try await rig.startServer(count: count, intervalMilliseconds: 20)
            // The client's timers never fire: "at once when the network returns" cannot pass by
            // a backoff that happened to end.
            let client = try rig.makeClient(clock: ManualClock())
            defer { client.close() }
            // The monitor the client got by default: its loop's, made on the loop's thread.
            let monitor = try #require(client.configuration.networkMonitor as? LinuxNetworkMonitor)
            #expect(monitor === rig.loop.networkMonitor)
            let reachableAt = LockedValue<ContinuousClock.Instant?>(nil)
            let observation = monitor.observe { status in
                if status.reachability == .reachable { reachableAt.withLock { $0 = $0 ?? .now } }
            }
            defer { monitor.cancel(observation) }
            let log = FaultEventLog(client)

            try await bounded("30 messages: \(log.summary)", seconds: 10) { log.ids.count >= 30 }
            let attemptsBefore = client.statistics.attempts
            let errorsBefore = log.errors.count
            try await rig.setClientLink(up: false)
            try await bounded("the loss to be reported: \(log.summary)", seconds: 10) {
                log.errors.contains { $0.event.error.code == .unreachable }
            }
            await WallTime.hold(for: .milliseconds(1500))
            let attemptsWhileDown = client.statistics.attempts - attemptsBefore
            reachableAt.withLock { $0 = nil }
            let opensBefore = log.opens.count
            let upAt = ContinuousClock.now
            let errorsWhileDown = log.errors.dropFirst(errorsBefore).map(\.event)
            try await rig.setClientLink(up: true)
            try await bounded("a reconnect: \(log.summary)", seconds: 10) { log.opens.count > opensBefore }
            let openedAt = log.opens[opensBefore]
            try await bounded("all \(count) messages: \(log.summary)", seconds: 15) { log.lastID == count }

            let ids = log.ids
            let resumedAt = try #require(log.firstMessage(after: openedAt))
            let seenUp = try #require(reachableAt.withLock { $0 })
            let ours = openedAt - seenUp
            let lost = errorsWhileDown.map { "\($0.error.code)" }.joined(separator: ",")
            print("Fault \(kind) link-down (default configuration): errors while down \(errorsWhileDown.count) [\(lost)], attempts while down \(attemptsWhileDown); link up → netlink reachable \((seenUp - upAt).millisecondsDescription), → open \((openedAt - upAt).millisecondsDescription), → first message \((resumedAt - upAt).millisecondsDescription) (client part: reachable → open \(ours.millisecondsDescription)); \(ids.count) messages")
            #expect(attemptsWhileDown == 0, "no connection attempt while the link is down")
            #expect(client.statistics.attempts == attemptsBefore + 1, "the first attempt after the link came back reconnected")
            #expect(errorsWhileDown.count == 1 && errorsWhileDown.first?.error.code == .unreachable,
                    "one unreachable error for the outage: \(lost)")
            #expect(ids == Array(1...count), "no lost or duplicated message: \(log.summary)")
        }
    }

    /// `rtcat` run in the client namespace (the whole process there, so its default monitor
    /// watches that namespace) across the same outage: by default one `unreachable` error
    /// and every id once; with `--no-reachability` the outage is found by the idle timeout
    /// and retried at backoff pace (no `unreachable`), and still every id once (the cursor).
    @Test(arguments: [false, true])
    func rtcatWatchesTheNetworkUnlessToldNot(noReachability: Bool) async throws {
        try await FaultRig.run(noReachability ? "rn" : "rd", .sse) { rig in
            let count = 150
            try await rig.startServer(count: count, intervalMilliseconds: 20)
            let rtcat = try #require(BuiltExecutable.url(named: "rtcat"), "rtcat is built with the tests")
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("rtcat-link-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: output) }
            let p = try SpawnedProcess(
                "/usr/sbin/ip",
                ["netns", "exec", rig.ns.client, rtcat.path, "--count", "\(count)", "--idle-timeout", "0.5",
                 "--backoff-initial", "0.2", "--backoff-max", "0.4", rig.url.absoluteString]
                    + (noReachability ? ["--no-reachability"] : []),
                output: .file(output.path))
            defer { if p.isRunning { NetnsPair.kill(p) } }
            let lines: @Sendable () -> [[String: Any]] = {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            }
            try await bounded("30 events from rtcat", seconds: 10) { lines().kind("event").count >= 30 }
            try await rig.setClientLink(up: false)
            await WallTime.hold(for: .milliseconds(1500))
            try await rig.setClientLink(up: true)
            let exit = await p.exit(within: .seconds(20))
            #expect(exit != nil, "rtcat to exit after \(count) events within 20 s")
            let all = lines()
            let ids = all.strings("id").compactMap(Int.init)
            let errors = all.compactMap { $0["kind"] as? String == "error" ? $0["code"] as? String : nil }
            print("Fault rtcat link-down\(noReachability ? " --no-reachability" : ""): errors \(errors), exit \(p.terminationStatus)")
            #expect(p.terminationStatus == 0)
            #expect(ids == Array(1...count), "every id once")
            if noReachability {
                #expect(!errors.isEmpty && !errors.contains("unreachable"), "\(errors)")
            } else {
                #expect(errors == ["unreachable"], "one error for the outage")
            }
        }
    }
}
#endif
