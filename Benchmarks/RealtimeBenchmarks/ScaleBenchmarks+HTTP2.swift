import Foundation
import Realtime
import RealtimeTestServer

/// `scale/1k-sse-h2` and `scale/10k-sse-h2`: N SSE streams over HTTP/2 (TLS, ALPN `h2`) to one
/// origin, Tests/Peers/h2_sse.py announcing 100 streams per connection (so N / 100
/// connections), each stream a `/connection` stream with a `: ping` comment every 5 s. The
/// phases of the other cases without the trickle (the peer takes no commands): open, memory
/// per stream once idle, 6 s of idle CPU and timers, close and the loop's teardown.
/// `RT_BENCH_SSE_BUFFER` sets the streams' `receiveBufferSize` (bytes), for exploring.
extension ScaleBenchmarks {
    static let http2Counts = [1_000, 10_000]
    static let http2MemoryGoalKiB = 8.0

    static var http2Benchmarks: [Benchmark] {
        http2Counts.map { n in
            Benchmark(name: "\(n / 1000)k-sse-h2") {
                let count = ProcessInfo.processInfo.environment["RT_BENCH_SCALE_COUNT"].flatMap { Int($0) } ?? n
                return [try runHTTP2(count: count)]
            }
        }
    }

    static func runHTTP2(count: Int) throws -> Measurement {
        ProcessProbe.raiseDescriptorLimit()
        let certificates = try TestCertificates.shared("scale")
        let peer = try ScalePeer(tls: (certificates.serverCertificateFile, certificates.serverKeyFile), script: "h2_sse.py")
        defer { peer.stop() }
        let url = URL(string: "https://127.0.0.1:\(peer.port)/connection?interval=\(heartbeat.components.seconds)")!
        let c = Case(kind: .sse, tls: true, count: count)
        var configuration = configuration(for: c, certificates: certificates)
        if let size = ProcessInfo.processInfo.environment["RT_BENCH_SSE_BUFFER"].flatMap({ Int($0) }) { configuration.sse.receiveBufferSize = size }
        let warmUp = ScaleFleet(url: url, configuration: configuration)
        guard try warmUp.open(count: 20, window: 20) != nil, warmUp.closeAll() != nil else {
            throw Failure(description: "sse-h2: the warm-up clients did not open against \(url): \(warmUp.firstFailure.withLock { $0 } ?? "no error")")
        }
        Thread.sleep(forTimeInterval: 0.5)
        let fleet = ScaleFleet(url: url, configuration: configuration)
        var f = Figures()
        f.rssStart = ProcessProbe.residentBytes()
        f.heapStart = ProcessProbe.heapInUseBytes()
        f.registrationsStart = ProcessProbe.loopRegistrations()
        let ownCPU = ProcessProbe.cpuSeconds()
        guard let open = try fleet.open(count: count, window: openWindow) else {
            _ = fleet.closeAll(timeout: 10)
            throw Failure(description: "sse-h2: \(fleet.opened.load(ordering: .relaxed)) of \(count) opened; first error: "
                + (fleet.firstFailure.withLock { $0 } ?? "none"))
        }
        f.openSeconds = open
        f.openCPU = ProcessProbe.cpuSeconds() - ownCPU
        Thread.sleep(forTimeInterval: 1)
        f.rssIdle = ProcessProbe.residentBytes()
        f.heapIdle = ProcessProbe.heapInUseBytes()
        (f.threads, f.ioThreads) = ProcessProbe.threads(named: "realtime-io")
        let connections = ProcessProbe.loopRegistrations() - f.registrationsStart
        f.idle = Window.measure(idleSeconds, fleet)
        f.errors = fleet.errorsAfterOpen.load(ordering: .relaxed)
        try close(fleet, name: "sse-h2", &f)
        var m = http2Measurement(count: count, connections: connections, f)
        let go = GoComparison.measure(url: url, count: count, window: openWindow, caFile: certificates.caCertificateFile)
        GoComparison.append(go, ours: Double(f.rssIdle - f.rssStart) / Double(count) / 1024, to: &m)
        return m
    }

    static func http2Measurement(count: Int, connections: Int, _ f: Figures) -> Measurement {
        let n = Double(count)
        let idleKiB = Double(f.rssIdle - f.rssStart) / n / 1024
        let timersPerStream = f.idle.timers / f.idle.seconds / n
        let closedMiB = Double(f.rssClosed - f.rssStart) / 1_048_576
        var m = Measurement(name: "scale/\(count / 1000)k-sse-h2", bytes: f.idle.bytes, items: f.idle.events, seconds: f.idle.seconds)
        m.extra = [
            ("KiB/stream idle", idleKiB), ("heap KiB/stream idle", Double(f.heapIdle - f.heapStart) / n / 1024),
            ("sockets", Double(connections)), ("open s", f.openSeconds), ("CPU s in open", f.openCPU),
            ("I/O threads", Double(f.ioThreads)), ("idle CPU %", f.idle.cpu / f.idle.seconds * 100),
            ("timers/stream/s", timersPerStream), ("close s", f.closeSeconds), ("teardown s", f.teardownSeconds),
            ("MiB after close", closedMiB), ("MiB after close+trim", Double(f.rssTrimmed - f.rssStart) / 1_048_576),
            ("heap MiB after close", Double(f.heapClosed - f.heapStart) / 1_048_576), ("load", ProcessProbe.loadAverage()),
        ]
        m.goals = [
            ("≤ \(Int(http2MemoryGoalKiB)) KiB/stream idle", idleKiB <= http2MemoryGoalKiB),
            ("open \(count) ≤ \(count / 1000) s", f.openSeconds <= n / 1000),
            ("≤ 32 MiB after close", closedMiB <= 32),
        ]
        m.correct = f.errors == 0
        if !m.correct { m.note = "\(f.errors) errors or closes while open" }
        return m
    }
}
