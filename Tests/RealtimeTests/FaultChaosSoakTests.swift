#if os(Linux)
import Foundation
import Glibc
@_spi(Transport) import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket

/// The chaos soak: 60 s of random faults, one after another, on a live SSE stream
/// between two network namespaces: the client's link goes down, the server's packets are
/// dropped (half-open), the server is killed and restarted on the same port, its link is
/// throttled (tbf). After each fault heals, the stream must flow again; at the end no event
/// may be lost or duplicated (ids 1…N, contiguous), and once the client is closed the
/// process must hold no more descriptors or threads than before it started, with memory
/// flat. The schedule comes from a seeded generator: the seed is printed, and
/// `RT_CHAOS_SEED=<seed>` replays it. Root only; runs in a child test process of its own, so
/// the baselines are its own and not those of the tests running alongside.
@Suite(.timeLimit(.minutes(5)))
struct FaultChaosSoakTests {
    /// Set to the transport (`sse`, `webSocket`) in the child process that runs its soak.
    static let childVariable = "RT_CHAOS_CHILD"
    /// A minute of faults; `RT_CHAOS_SECONDS` changes it (e.g. a longer soak by hand).
    static let soakSeconds = ProcessInfo.processInfo.environment["RT_CHAOS_SECONDS"].flatMap(Double.init) ?? 60

    @Test func sseChaosSoak() async throws { try await soakInChild(.sse) }

    @Test func webSocketChaosSoak() async throws { try await soakInChild(.webSocket) }

    /// In the parent: runs this transport's soak in a child test process and relays its
    /// report. In a child: runs the soak if the child is for this transport.
    func soakInChild(_ transport: FaultRig.Kind) async throws {
        if let child = ProcessInfo.processInfo.environment[Self.childVariable] {
            if child == transport.rawValue {
                ChildTestProcess.lowerPriority()
                try await soak(transport)
            }
            return
        }
        guard geteuid() == 0 else {
            print("SKIPPED (chaos soak, \(transport.rawValue)): needs root for network namespaces; run `make test` as root (CI does)")
            return
        }
        let (status, lines) = try await ChildTestProcess.relay(
            filter: "FaultChaosSoakTests", variable: Self.childVariable, value: transport.rawValue, timeoutSeconds: 150,
            prefix: "Fault chaos")
        if lines.contains(where: { $0.contains("SKIPPED") }) { return }
        #expect(status == 0, "the \(transport.rawValue) chaos soak's child process failed (exit \(status))")
        #expect(lines.contains { $0.hasPrefix("Fault chaos \(transport.rawValue): summary") }, "the soak ran and reported its numbers")
    }

    enum Kind: String, CaseIterable {
        case linkDown = "link-down", halfOpen = "half-open", serverKill = "server-kill", throttle = "throttle"
    }

    struct Fault {
        var kind: Kind
        var at: Duration
        var duration: Duration
        /// Heal → first `open` after it (nil when the connection survived the fault).
        var reopen: Duration?
        /// Heal → events flowing again (a few arrived).
        var flowing: Duration?
        /// Connection attempts while the client's link was down (link-down only).
        var attemptsWhileDown: Int?
    }

    struct Log {
        var ids: [Int] = []
        var opens: [ContinuousClock.Instant] = []
        var errors: [RealtimeError.Code] = []
    }

    func soak(_ transport: FaultRig.Kind) async throws {
        let seed = ProcessInfo.processInfo.environment["RT_CHAOS_SEED"].flatMap(UInt64.init)
            ?? UInt64(Date().timeIntervalSince1970 * 1000)
        let name = "Fault chaos \(transport.rawValue)"
        print("\(name): seed \(seed) (RT_CHAOS_SEED=\(seed) replays the schedule)")
        try await FaultRig.run("cs", transport) { rig in
            let servers = Servers(rig)
            do {
                try await soak(rig, servers, seed: seed, name: name)
            } catch {
                await servers.kill()
                throw error
            }
            await servers.kill()
        }
    }

    func soak(_ rig: FaultRig, _ servers: Servers, seed: UInt64, name: String) async throws {
        var rng = SeededGenerator(seed: seed)
        try await servers.start()
        try await warmUp(rig)
        let fdBefore = ProcessResources.openDescriptors
        let tableBefore = ProcessResources.descriptorTable
        let threadsBefore = ProcessResources.threads
        let loopThreadsBefore = Self.loopThreads()

        let session = try await Session(rig)
        let log = LockedValue(Log())
        let consumer = Task { [client = session.client] in
            for await event in client.events {
                log.withLock { l in
                    switch event {
                    case .event(let m):
                        if let id = m.id.flatMap(Int.init) { l.ids.append(id) }
                    case .open: l.opens.append(.now)
                    case .error(let e): l.errors.append(e.error.code)
                    case .closed: break
                    }
                }
            }
        }
        let run = try await injectFaults(session.client, log, rig, servers, rng: &rng)
        consumer.cancel()
        await session.close()
        _ = await consumer.value
        // Threads and descriptors go away asynchronously (joined threads, deferred closes):
        // give them a bounded moment.
        _ = await eventually(within: .seconds(10), pollingEvery: .milliseconds(100)) {
            ProcessResources.openDescriptors <= fdBefore && ProcessResources.threads <= threadsBefore
                && Self.loopThreads() <= loopThreadsBefore
        }
        let fdAfter = ProcessResources.openDescriptors
        let threadsAfter = ProcessResources.threads
        let ids = log.withLock { $0.ids }
        report(name, seed: seed, run, ids: ids, descriptors: (fdBefore, fdAfter), threads: (threadsBefore, threadsAfter))

        // A cycle is ≤ 2 s calm + ≤ 3 s fault + the recovery: about one fault every 4–9 s.
        #expect(run.faults.count >= Int(Self.soakSeconds / 10), "a fault every few seconds")
        if Self.soakSeconds >= 60 {
            #expect(Set(run.faults.map(\.kind)).count >= 3, "most kinds of fault were exercised")
        }
        #expect(ids == Array(1...max(1, ids.last ?? 0)), "no lost or duplicated event: ids contiguous from 1")
        for f in run.faults where f.kind == .linkDown {
            #expect(f.attemptsWhileDown == 0, "no connection attempt while the link was down (t=\(Self.ms(f.at)))")
        }
        let leaked = ProcessResources.descriptorTable.filter { tableBefore[$0.key] != $0.value }
        #expect(fdAfter <= fdBefore, "descriptors back to the baseline; new since: \(leaked.sorted { $0.key < $1.key })")
        // The session's loop thread is joined; a resolver thread per attempt left behind would
        // be dozens. Dispatch's and the cooperative pool's workers may grow by one or two on a
        // loaded machine (a blocked worker makes the pool start another) without any leak.
        #expect(Self.loopThreads() <= loopThreadsBefore, "the session's loop thread is gone")
        #expect(threadsAfter <= threadsBefore + 2, "threads back to the baseline (± the pools' workers): \(ProcessResources.threadNames.sorted())")
        #expect(run.rssEnd - run.rssWarm < 32 << 20, "memory flat: RSS grew by \((run.rssEnd - run.rssWarm) / 1024) KiB")
    }

    /// Threads named like the client-namespace loops (the rig's and each session's).
    static func loopThreads() -> Int {
        ProcessResources.threadNames.filter { $0 == NetnsPair.clientLoopName }.count
    }

    /// A first, short session initialises what a process creates once and keeps (curl's
    /// global state, Dispatch's timer descriptors, the cooperative pool's threads); the
    /// baselines come after it, so only what a session leaks can show. The rig's own loop
    /// and servers exist throughout; each session has a loop and monitor of its own.
    func warmUp(_ rig: FaultRig) async throws {
        try await ProcessResources.openDispatchTimerDescriptors()
        let warmUp = try await Session(rig)
        let first = LockedValue(false)
        let reader = Task {
            for await event in warmUp.client.events {
                if case .event = event { first.withLock { $0 = true }; break }
            }
        }
        try await bounded("the warm-up session's first event", seconds: 10) { first.withLock { $0 } }
        reader.cancel()
        await warmUp.close()
    }

    /// What one soak saw: its faults, how long it ran, the client's counters and its memory.
    struct Run {
        var faults: [Fault] = []
        var time: Duration = .zero
        var statistics: RealtimeClient.Statistics
        var rssWarm: Int
        var rssEnd: Int = 0
    }

    /// Each cycle: calm, one fault, heal, wait for the stream to flow again (≤ 10 s). Stops
    /// starting faults when the longest calm + fault would overrun the soak.
    func injectFaults(
        _ client: RealtimeClient, _ log: LockedValue<Log>, _ rig: FaultRig, _ servers: Servers,
        rng: inout SeededGenerator
    ) async throws -> Run {
        let start = ContinuousClock.now
        try await bounded("the first events", seconds: 10) { log.withLock { $0.ids.count >= 20 } }
        var run = Run(statistics: client.statistics, rssWarm: ProcessResources.residentBytes)
        let end = start + .seconds(Self.soakSeconds)
        while ContinuousClock.now + .seconds(5) < end {
            await WallTime.hold(for: .seconds(Double.random(in: 0.8...2.0, using: &rng)))
            let kind = Kind.allCases.randomElement(using: &rng)!
            let duration = Duration.seconds(Double.random(in: 0.5...3.0, using: &rng))
            var fault = Fault(kind: kind, at: ContinuousClock.now - start, duration: duration)
            let attemptsBefore = client.statistics.attempts
            try await apply(kind, rig, servers)
            await WallTime.hold(for: duration)
            if kind == .linkDown { fault.attemptsWhileDown = client.statistics.attempts - attemptsBefore }
            let opensBefore = log.withLock { $0.opens.count }
            let idsBefore = log.withLock { $0.ids.count }
            let healedAt = ContinuousClock.now
            try await heal(kind, rig, servers)
            try await bounded("events after the \(kind.rawValue) fault healed", seconds: 10) {
                log.withLock { $0.ids.count > idsBefore + 2 }
            }
            fault.flowing = ContinuousClock.now - healedAt
            log.withLock { l in
                if l.opens.count > opensBefore { fault.reopen = l.opens[opensBefore] - healedAt }
            }
            run.faults.append(fault)
            if run.faults.count == 1 { run.rssWarm = ProcessResources.residentBytes }
        }
        run.rssEnd = ProcessResources.residentBytes
        run.time = ContinuousClock.now - start
        run.statistics = client.statistics
        return run
    }

    /// Prints each fault and the summary line.
    func report(
        _ name: String, seed: UInt64, _ run: Run, ids: [Int], descriptors: (Int, Int), threads: (Int, Int)
    ) {
        let last = ids.last ?? 0
        for f in run.faults {
            print(
                "\(name): t=\(Self.ms(f.at)) \(f.kind.rawValue) for \(Self.ms(f.duration)) → "
                    + (f.reopen.map { "reopened \(Self.ms($0)) after heal" } ?? "connection survived")
                    + ", flowing \(Self.ms(f.flowing ?? .zero)) after heal"
                    + (f.attemptsWhileDown.map { ", \($0) attempts while down" } ?? ""))
        }
        var perKind: [String] = []
        for kind in Kind.allCases {
            let of = run.faults.filter { $0.kind == kind }
            let reopens = of.compactMap(\.reopen).map(\.secondsDouble)
            let latency = reopens.isEmpty
                ? "no reconnect needed"
                : "heal→open mean \(Self.ms(.seconds(reopens.reduce(0, +) / Double(reopens.count)))) max \(Self.ms(.seconds(reopens.max()!)))"
            perKind.append("\(kind.rawValue) ×\(of.count) (\(reopens.count) reconnected; \(latency))")
        }
        print("""
            \(name): summary: seed \(seed), \(Self.ms(run.time)), \(run.faults.count) faults: \(perKind.joined(separator: "; ")); \
            \(ids.count) events (last id \(last)), lost \(last - Set(ids).count), duplicated \(ids.count - Set(ids).count); \
            \(run.statistics.attempts) attempts, \(run.statistics.connections) connections; \
            descriptors \(descriptors.0) → \(descriptors.1), threads \(threads.0) → \(threads.1), \
            RSS \(run.rssWarm / 1024) KiB → \(run.rssEnd / 1024) KiB
            """)
    }

    /// One client of the rig's transport in the client namespace, on a loop and network
    /// monitor of its own; ``close()`` releases all three.
    struct Session {
        let loop: EventLoop
        let monitor: LinuxNetworkMonitor
        let client: RealtimeClient

        init(_ rig: FaultRig) async throws {
            let loop = try #require(await rig.ns.makeClientLoop())
            let monitor: LinuxNetworkMonitor = await loop.submit { LinuxNetworkMonitor(eventLoop: loop) }
            var c = RealtimeClient.Configuration()
            c.networkMonitor = monitor
            c.backoff = .exponential(initial: .milliseconds(100), maximum: .seconds(1))
            c.connectTimeout = .seconds(2)
            c.idleTimeout = .milliseconds(1500)
            c.pathChangeProbeTimeout = .seconds(1)
            c.heartbeat = .disabled  // the idle timeout finds a dead peer for both transports
            c.resumeWithIDPipeFraming()
            let sse = c.sse
            var webSocket = c.webSocket
            webSocket.heartbeat = c.heartbeat
            let ws = webSocket
            self.loop = loop
            self.monitor = monitor
            self.client = try RealtimeClient(
                url: rig.url, configuration: c, clock: ContinuousClock(), random: SystemRandomNumberGenerator(),
                transportFactory: { request in
                    switch RealtimeClient.transportKind(for: request.url) {
                    case .webSocket: WebSocketTransport(request: request, options: ws, eventLoop: loop)
                    default: SSETransport(request: request, options: sse, eventLoop: loop)
                    }
                })
        }

        func close() async {
            client.close()
            monitor.stop()
            let loop = self.loop
            _ = try? await offloaded { loop.shutdown() }
        }
    }

    // MARK: Faults

    func apply(_ kind: Kind, _ rig: FaultRig, _ servers: Servers) async throws {
        switch kind {
        case .linkDown:
            try await rig.setClientLink(up: false)
        case .halfOpen:
            try await rig.dropServerTraffic(true)
        case .serverKill:
            await servers.kill()
        case .throttle:
            // Below the stream's ~10 kbit/s, with a short queue: messages trickle, packets drop.
            try await rig.inServerNamespace(
                "tc", "qdisc", "add", "dev", rig.ns.serverVeth, "root", "tbf", "rate", "8kbit", "burst", "1600",
                "latency", "200ms")
        }
    }

    func heal(_ kind: Kind, _ rig: FaultRig, _ servers: Servers) async throws {
        switch kind {
        case .linkDown:
            try await rig.setClientLink(up: true)
        case .halfOpen:
            try await rig.dropServerTraffic(false)
        case .serverKill:
            try await servers.start()
        case .throttle:
            try await rig.inServerNamespace("tc", "qdisc", "del", "dev", rig.ns.serverVeth, "root")
        }
    }

    /// The rig's streaming server, at normal priority: this soak runs in a child test process
    /// at nice 19 (``ChildTestProcess/lowerPriority()``).
    final class Servers: Sendable {
        let rig: FaultRigReference
        let running = LockedValue<[SpawnedProcess]>([])

        init(_ rig: FaultRig) { self.rig = FaultRigReference(rig: rig) }

        func start() async throws {
            let rig = self.rig.rig
            let args = [
                "python3", NetnsPair.scripts.appendingPathComponent(rig.kind.server).path,
                NetnsPair.serverAddress, "\(FaultRig.port)", "1000000", "20",
            ]
            let p = try await rig.ns.spawnReady(in: rig.ns.server, args, normalPriority: true)
            running.withLock { $0.append(p) }
        }

        func kill() async {
            let processes = running.withLock { r in defer { r.removeAll() }; return r }
            await NetnsPair.killed(processes)
        }
    }

    /// The rig, handed to ``Servers`` (which reads only its immutable names).
    struct FaultRigReference: @unchecked Sendable { var rig: FaultRig }

    // MARK: Helpers

    static func ms(_ d: Duration) -> String {
        let c = d.components
        return "\(c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000) ms"
    }
}

extension Duration {
    fileprivate var secondsDouble: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
#endif
