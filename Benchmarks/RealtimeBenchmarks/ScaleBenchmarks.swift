import Foundation
import Realtime
import RealtimeTestServer

/// Thousands of connections in one process: what each costs while idle, how fast they open,
/// what the process does while they are quiet, what a steady trickle on every one of them
/// costs, and what stays behind once they are all closed.
///
/// For each case, N ``RealtimeClient``s (each with a consumer task, as an application runs
/// them) connect to Tests/Peers/scale_peer.py in another process, so the server's memory is
/// never counted; both processes raise their descriptor limit. Phases, in order:
/// 1. **open**: clients are created with at most 1,000 connecting at once; the time runs from
///    the first to the last `.open` seen by its consumer (with this process's CPU and the
///    server's: a Python server's TLS handshakes bound the TLS cases);
/// 2. **idle**, after a second to settle: resident memory per connection (RSS growth since
///    just before the open, divided by N), threads, then 6 s with heartbeats on — WebSocket
///    pings after 5 s of silence, SSE `:` comments every 5 s from the server (from the open on) — measuring the
///    process's CPU and the I/O loop's wake-ups and timers;
/// 3. **trickle**: every connection receives a 128-byte JSON-like event every 500 ms for
///    5 s (the last 4 measured): events/s delivered against offered, CPU per event;
/// 4. **quiet** again: memory per connection after that traffic, which shows any buffer
///    sized for bursts that a quiet connection kept;
/// 5. **close**: every client closed, then the loop's teardown of their connections (until
///    it watches no more sockets than before the open); RSS 2 s later against the start, and
///    after `malloc_trim(0)` (the difference is heap fragmentation).
/// A warm-up of 20 clients first pays the one-time costs (libraries, TLS, curl).
///
/// `scale/1k` is the quick mode (N = 1,000 only); the whole suite takes a few minutes.
enum ScaleBenchmarks {
    enum Kind: String { case sse, ws }

    struct Case: Sendable {
        var kind: Kind
        var tls = false
        var deflate = false
        var count: Int

        var name: String {
            "\(count / 1000)k-\(kind.rawValue)" + (deflate ? "-deflate" : "") + (tls ? "-tls" : "")
        }

        /// With `RT_BENCH_SCALE_COUNT` set, that many connections instead (for exploring).
        var withCountOverride: Case {
            var c = self
            if let n = ProcessInfo.processInfo.environment["RT_BENCH_SCALE_COUNT"].flatMap({ Int($0) }) { c.count = n }
            return c
        }

        /// The goal for memory per idle connection, KiB: SSE 20 plain and 40 over TLS,
        /// WebSocket 16 (Go gorilla's figure) plain and 40 over TLS, 64 with deflate.
        var memoryGoalKiB: Double {
            if deflate { return 64 }
            if tls { return 40 }
            return kind == .sse ? 20 : 16
        }
    }

    static let cases: [Case] = [1_000, 10_000].flatMap { n in
        [Case(kind: .sse, count: n), Case(kind: .ws, count: n), Case(kind: .ws, deflate: true, count: n),
         Case(kind: .sse, tls: true, count: n), Case(kind: .ws, tls: true, count: n)]
    }

    static let suite = BenchmarkSuite(
        name: "scale", benchmarks: cases.map { c in Benchmark(name: c.name) { [try run(c.withCountOverride)] } } + http2Benchmarks)

    static let openWindow = ProcessInfo.processInfo.environment["RT_BENCH_SCALE_WINDOW"].flatMap { Int($0) } ?? 1_000
    /// The peer's listen queue (`RT_BENCH_SCALE_BACKLOG`; default 4,096, asyncio's own is 100).
    static let backlog = ProcessInfo.processInfo.environment["RT_BENCH_SCALE_BACKLOG"].flatMap { Int($0) }
    static let heartbeat: Duration = .seconds(5)
    static let idleSeconds = 6.0
    static let trickleIntervalMilliseconds = 500
    static let trickleEventSize = 128
    static let trickleSeconds = 4.0

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What one case measured, phase by phase.
    struct Figures {
        var rssStart = 0, rssIdle = 0, rssQuiet = 0, rssClosed = 0, rssTrimmed = 0
        var heapStart = 0, heapIdle = 0, heapQuiet = 0, heapClosed = 0
        var openSeconds = 0.0, closeSeconds = 0.0, teardownSeconds = 0.0, peerOpenCPU = 0.0, peerTrickleCPU = 0.0, openCPU = 0.0
        var registrationsStart = 0
        var threads = 0, ioThreads = 0
        var idle = Window(), trickle = Window()
        var errors = 0
    }

    /// CPU and loop activity over a timed window, and the events received in it.
    struct Window {
        var seconds = 0.0, cpu = 0.0, loopCPU = 0.0
        var wakeUps = 0.0, timers = 0.0, events = 0, bytes = 0

        static func measure(_ seconds: Double, _ fleet: ScaleFleet) -> Window {
            let cpu = ProcessProbe.cpuSeconds(), loop = ProcessProbe.loopCPUSeconds()
            let stats = ProcessProbe.loopStatistics()
            let events = fleet.events.load(ordering: .relaxed), bytes = fleet.bytes.load(ordering: .relaxed)
            let start = DispatchTime.now().uptimeNanoseconds
            Thread.sleep(forTimeInterval: seconds)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let after = ProcessProbe.loopStatistics()
            return Window(
                seconds: elapsed, cpu: ProcessProbe.cpuSeconds() - cpu, loopCPU: ProcessProbe.loopCPUSeconds() - loop,
                wakeUps: Double(after.wakeUps - stats.wakeUps), timers: Double(after.timersFired - stats.timersFired),
                events: fleet.events.load(ordering: .relaxed) - events, bytes: fleet.bytes.load(ordering: .relaxed) - bytes)
        }
    }

    static func run(_ c: Case) throws -> Measurement {
        ProcessProbe.raiseDescriptorLimit()
        let certificates = c.tls ? try TestCertificates.shared("scale") : nil
        let peer = try ScalePeer(
            tls: certificates.map { ($0.serverCertificateFile, $0.serverKeyFile) }, arguments: backlog.map { ["--backlog", "\($0)"] } ?? [])
        defer { peer.stop() }
        let scheme = c.kind == .sse ? (c.tls ? "https" : "http") : (c.tls ? "wss" : "ws")
        let url = URL(string: "\(scheme)://127.0.0.1:\(peer.port)/\(c.kind.rawValue)")!
        let configuration = configuration(for: c, certificates: certificates)

        let warmUp = ScaleFleet(url: url, configuration: configuration)
        guard try warmUp.open(count: 20, window: 20) != nil, warmUp.closeAll() != nil else {
            throw Failure(description: "\(c.name): the warm-up clients did not open against \(url)")
        }
        Thread.sleep(forTimeInterval: 0.5)
        let figures = try phases(c, peer: peer, fleet: ScaleFleet(url: url, configuration: configuration))
        var m = measurement(c, figures)
        if !c.deflate {  // gorilla compresses without context takeover only: no like case
            let go = GoComparison.measure(url: url, count: c.count, window: openWindow, caFile: certificates?.caCertificateFile)
            GoComparison.append(go, ours: Double(figures.rssIdle - figures.rssStart) / Double(c.count) / 1024, to: &m)
        }
        return m
    }

    static func phases(_ c: Case, peer: ScalePeer, fleet: ScaleFleet) throws -> Figures {
        var f = Figures()
        f.rssStart = ProcessProbe.residentBytes()
        f.heapStart = ProcessProbe.heapInUseBytes()
        f.registrationsStart = ProcessProbe.loopRegistrations()
        // SSE heartbeats (comments) run from the start, as a server sends them: ten thousand
        // TLS opens can take longer than the idle timeout.
        if c.kind == .sse { try peer.command("heartbeat \(heartbeat.components.seconds * 1000)") }
        let peerCPU = try peer.stats().cpu
        let ownCPU = ProcessProbe.cpuSeconds()
        guard let open = try fleet.open(count: c.count, window: openWindow) else {
            _ = fleet.closeAll(timeout: 10)
            throw Failure(description: "\(c.name): \(fleet.opened.load(ordering: .relaxed)) of \(c.count) opened, "
                + "\(fleet.failedBeforeOpen.load(ordering: .relaxed)) failed; first error: \(fleet.firstFailure.withLock { $0 } ?? "none")")
        }
        f.openSeconds = open
        f.peerOpenCPU = try peer.stats().cpu - peerCPU
        f.openCPU = ProcessProbe.cpuSeconds() - ownCPU
        Thread.sleep(forTimeInterval: 1)
        f.rssIdle = ProcessProbe.residentBytes()
        f.heapIdle = ProcessProbe.heapInUseBytes()
        (f.threads, f.ioThreads) = ProcessProbe.threads(named: "realtime-io")

        f.idle = Window.measure(idleSeconds, fleet)
        try peer.command("quiet")

        try peer.command("trickle \(trickleIntervalMilliseconds) \(trickleEventSize)")
        Thread.sleep(forTimeInterval: 1)
        let peerBefore = try peer.stats().cpu
        f.trickle = Window.measure(trickleSeconds, fleet)
        f.peerTrickleCPU = (try peer.stats().cpu - peerBefore) / f.trickle.seconds
        try peer.command("quiet")
        Thread.sleep(forTimeInterval: 1.5)
        f.rssQuiet = ProcessProbe.residentBytes()
        f.heapQuiet = ProcessProbe.heapInUseBytes()
        f.errors = fleet.errorsAfterOpen.load(ordering: .relaxed)

        try close(fleet, name: c.name, &f)
        return f
    }

    /// The close phase: every client closed, the loop's teardown awaited, then RSS and heap
    /// 2 s later, and RSS after `malloc_trim`.
    static func close(_ fleet: ScaleFleet, name: String, _ f: inout Figures) throws {
        guard let close = fleet.closeAll() else { throw Failure(description: "\(name): clients did not finish after close()") }
        f.closeSeconds = close
        f.teardownSeconds = waitForTeardown(registrations: f.registrationsStart)
        Thread.sleep(forTimeInterval: 2)
        f.rssClosed = ProcessProbe.residentBytes()
        f.heapClosed = ProcessProbe.heapInUseBytes()
        ProcessProbe.trimHeap()
        f.rssTrimmed = ProcessProbe.residentBytes()
    }

    /// Waits until the loop watches no more sockets than before the open (polling every
    /// 50 ms, at most 60 s) and returns the seconds since `closeAll` returned. A consumer sees
    /// its end as soon as its client is closed, while the loop is still closing connections
    /// behind them: about 2 s for 10,000 TLS connections, whose memory a measurement taken
    /// earlier counts as kept.
    static func waitForTeardown(registrations: Int) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        while ProcessProbe.loopRegistrations() > registrations,
              DispatchTime.now().uptimeNanoseconds - start < 60_000_000_000 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func configuration(for c: Case, certificates: TestCertificates?) -> RealtimeClient.Configuration {
        var configuration = RealtimeClient.Configuration()
        configuration.heartbeat = .ping(every: heartbeat)
        configuration.idleTimeout = c.kind == .sse ? heartbeat * 3 : .seconds(60)
        configuration.connectTimeout = .seconds(30)
        if let certificates { configuration.tls.trustRoots = .file(certificates.caCertificateFile) }
        configuration.webSocket.compression = c.deflate ? .default : .disabled
        return configuration
    }

    static func measurement(_ c: Case, _ f: Figures) -> Measurement {
        let n = Double(c.count)
        let kib = { (bytes: Int) in Double(bytes - f.rssStart) / n / 1024 }
        let idleKiB = kib(f.rssIdle), quietKiB = kib(f.rssQuiet)
        let offered = n * 1000 / Double(trickleIntervalMilliseconds)
        let delivered = Double(f.trickle.events) / f.trickle.seconds
        let timersPerConnection = f.idle.timers / f.idle.seconds / n
        let heartbeatsPerConnection = 1 / Double(heartbeat.components.seconds)
        let closedMiB = Double(f.rssClosed - f.rssStart) / 1_048_576
        var m = Measurement(
            name: "scale/\(c.name)", bytes: f.trickle.bytes, items: f.trickle.events, seconds: f.trickle.seconds)
        m.extra = [
            ("KiB/conn idle", idleKiB), ("KiB/conn after trickle", quietKiB),
            ("heap KiB/conn idle", Double(f.heapIdle - f.heapStart) / n / 1024),
            ("heap KiB/conn after trickle", Double(f.heapQuiet - f.heapStart) / n / 1024),
            ("open s", f.openSeconds),
            ("CPU s in open", f.openCPU), ("peer CPU s in open", f.peerOpenCPU), ("threads", Double(f.threads)), ("I/O threads", Double(f.ioThreads)),
            ("idle CPU %", f.idle.cpu / f.idle.seconds * 100), ("idle I/O CPU %", f.idle.loopCPU / f.idle.seconds * 100),
            ("idle wake-ups/s", f.idle.wakeUps / f.idle.seconds), ("timers/conn/s", timersPerConnection),
            ("trickle ev/s", delivered), ("trickle offered ev/s", offered), ("peer CPU % in trickle", f.peerTrickleCPU * 100), ("trickle CPU µs/event", f.trickle.cpu / Double(max(1, f.trickle.events)) * 1e6),
            ("trickle I/O µs/event", f.trickle.loopCPU / Double(max(1, f.trickle.events)) * 1e6),
            ("close s", f.closeSeconds), ("teardown s", f.teardownSeconds), ("MiB after close", closedMiB),
            ("MiB after close+trim", Double(f.rssTrimmed - f.rssStart) / 1_048_576),
            ("heap MiB after close", Double(f.heapClosed - f.heapStart) / 1_048_576), ("load", ProcessProbe.loadAverage()),
        ]
        m.goals = [
            ("≤ \(Int(c.memoryGoalKiB)) KiB/conn idle, before and after traffic", max(idleKiB, quietKiB) <= c.memoryGoalKiB),
            ("open \(c.count) ≤ \(c.count / 1000) s", f.openSeconds <= n / 1000),
            ("no timer more often than the heartbeat", timersPerConnection <= heartbeatsPerConnection * 1.1),
            ("one I/O thread", f.ioThreads == 1),
            ("trickle delivered ≥ 95% of offered", delivered >= offered * 0.95),
            ("≤ 32 MiB after close", closedMiB <= 32),
        ]
        m.correct = f.errors == 0
        if !m.correct { m.note = "\(f.errors) errors or closes while open" }
        return m
    }
}
