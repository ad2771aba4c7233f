import Foundation
import Realtime
import RealtimeTestServer
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE

/// End-to-end SSE throughput over loopback: the in-process
/// ``TestServer`` streams `/bulk` (a pre-rendered `text/event-stream` body) and, in the same
/// run, `curl -N` and ``SSETransport`` each download the same stream, alternately, three
/// times (best of each is kept; `--reps N` changes the count). Wall-clock time (this is
/// I/O), events counted by the transport's consumer, and the process's resident memory
/// sampled every 10 ms while streaming (peak over all runs).
///
/// Bytes default to 1 GiB for the headline run; set `RT_BENCH_SSE_BYTES` to change it.
enum SSETransportBenchmarks {
    static let suite = BenchmarkSuite(name: "sse-e2e", benchmarks: [
        Benchmark(name: "4KiB-events") { [try run(eventSize: 4096, bytes: gib)] },
        Benchmark(name: "1KiB-events") { [try run(eventSize: 1024, bytes: gib / 4)] },
        Benchmark(name: "128B-events") { [try run(eventSize: 128, bytes: gib / 16)] },
        Benchmark(name: "client-4KiB-events") { [try run(eventSize: 4096, bytes: gib, via: .client)] },
        Benchmark(name: "client-1KiB-events") { [try run(eventSize: 1024, bytes: gib / 4, via: .client)] },
        Benchmark(name: "client-128B-events") { [try run(eventSize: 128, bytes: gib / 16, via: .client)] },
        Benchmark(name: "loop-4KiB-events") { [try run(eventSize: 4096, bytes: gib, via: .clientOnLoop)] },
        Benchmark(name: "loop-1KiB-events") { [try run(eventSize: 1024, bytes: gib / 4, via: .clientOnLoop)] },
        Benchmark(name: "loop-128B-events") { [try run(eventSize: 128, bytes: gib / 16, via: .clientOnLoop)] },
        Benchmark(name: "batch-4KiB-events") { [try run(eventSize: 4096, bytes: gib, via: .clientBatches)] },
        Benchmark(name: "batch-1KiB-events") { [try run(eventSize: 1024, bytes: gib / 4, via: .clientBatches)] },
        Benchmark(name: "batch-128B-events") { [try run(eventSize: 128, bytes: gib / 16, via: .clientBatches)] },
        Benchmark(name: "loopbatch-4KiB-events") { [try run(eventSize: 4096, bytes: gib, via: .clientBatchesOnLoop)] },
        Benchmark(name: "loopbatch-128B-events") { [try run(eventSize: 128, bytes: gib / 16, via: .clientBatchesOnLoop)] },
    ])

    static var gib: Int {
        ProcessInfo.processInfo.environment["RT_BENCH_SSE_BYTES"].flatMap { Int($0) } ?? 1 << 30
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What consumes the stream: the transport alone, or the whole client (`RealtimeClient`:
    /// reconnect loop, resume cursor, statistics) as an application uses it — on the
    /// cooperative pool, or on the I/O loop (`withTaskExecutorPreference(EventLoop.shared)`),
    /// or through `client.batches` (each event's data read in place, no `String`) on the pool
    /// or on the I/O loop.
    enum Consumer {
        case transport, client, clientOnLoop, clientBatches, clientBatchesOnLoop

        var prefix: String {
            switch self {
            case .transport: ""
            case .client: "client-"
            case .clientOnLoop: "loop-"
            case .clientBatches: "batch-"
            case .clientBatchesOnLoop: "loopbatch-"
            }
        }
    }

    static func run(eventSize: Int, bytes requested: Int, via consumer: Consumer = .transport) throws -> Measurement {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let total = requested / eventSize * eventSize
        let url = server.url("/bulk?bytes=\(requested)&event_size=\(eventSize)")

        // The machine is shared: alternate curl and the transport and keep the best of each,
        // so both see the same background load.
        var curlSeconds = Double.infinity
        var seconds = Double.infinity
        var result = Consumed()
        let rssBefore = residentBytes()
        var peak = rssBefore
        var cpuPerWall = 0.0
        var curlCPU = Double.infinity
        var ourCPU = Double.infinity
        var loopCPU = Double.infinity
        for _ in 0..<max(1, Timing.repetitionOverride ?? 3) {
            // CPU of the whole pipeline (server thread + curl child), as a load-independent
            // cost next to the wall-clock ratio.
            // Valgrind cannot spawn curl: `RT_BENCH_SSE_NO_CURL=1` skips it (instruction counts).
            let curlCPUStart = processCPUSeconds() + childCPUSeconds()
            let curl = ProcessInfo.processInfo.environment["RT_BENCH_SSE_NO_CURL"] == nil
                ? try curlDownload(url) : (seconds: 1.0, bytes: total)
            curlCPU = min(curlCPU, processCPUSeconds() + childCPUSeconds() - curlCPUStart)
            guard curl.bytes == total else { throw Failure(description: "curl got \(curl.bytes) of \(total) bytes") }
            curlSeconds = min(curlSeconds, curl.seconds)

            let sampler = PeakSampler()
            sampler.start()
            let start = DispatchTime.now().uptimeNanoseconds
            let cpuStart = processCPUSeconds()
            let loopStart = threadCPUSeconds(named: "realtime-io")
            switch consumer {
            case .transport: result = consume(url)
            case .client: result = consumeWithClient(url, onLoop: false)
            case .clientOnLoop: result = consumeWithClient(url, onLoop: true)
            case .clientBatches: result = consumeWithClient(url, onLoop: false, batches: true)
            case .clientBatchesOnLoop: result = consumeWithClient(url, onLoop: true, batches: true)
            }
            let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            seconds = min(seconds, wall)
            let cpu = processCPUSeconds() - cpuStart
            loopCPU = min(loopCPU, threadCPUSeconds(named: "realtime-io") - loopStart)
            ourCPU = min(ourCPU, cpu)
            cpuPerWall = cpu / wall
            peak = max(peak, sampler.stop())
        }

        let expectedEvents = total / eventSize
        var m = Measurement(name: "\(suite.name)/\(consumer.prefix)\(eventSize)B-events", bytes: total, items: result.events, seconds: seconds)
        let curlMBps = Double(total) / curlSeconds / 1e6
        let ratio = m.megabytesPerSecond / curlMBps
        m.extra = [
            ("curl MB/s", curlMBps), ("vs curl", ratio),
            ("RSS before MiB", Double(rssBefore) / 1_048_576), ("peak RSS MiB", Double(peak) / 1_048_576),
            ("process CPU/wall", cpuPerWall),
            ("CPU s/GB", ourCPU / Double(total) * 1e9), ("curl CPU s/GB", curlCPU / Double(total) * 1e9),
            ("I/O thread CPU s/GB", loopCPU / Double(total) * 1e9),
            ("µs/event process", ourCPU / Double(max(1, result.events)) * 1e6),
            ("µs/event I/O thread", loopCPU / Double(max(1, result.events)) * 1e6),
        ]
        m.goals = [(ratioGoal(consumer, eventSize), ratio >= ratioGoalValue(consumer, eventSize)), ("peak RSS < before + 64 MiB", peak < rssBefore + 64 << 20)]
        if consumer == .client, eventSize == 128 {
            m.goals.append(("≥ 3 M events/s", Double(result.events) / seconds >= 3e6))
        }
        m.correct = result.events == expectedEvents && result.clean
        if !m.correct { m.note = "expected \(expectedEvents) events and a clean end, got \(result.events) (\(result.end))" }
        return m
    }

    /// The ratio to `curl -N` each row aims at: the batch path ≥ 0.35× at 128 B events and
    /// ≥ 0.7× above; every other row ≥ 0.7×.
    static func ratioGoalValue(_ consumer: Consumer, _ eventSize: Int) -> Double {
        [.clientBatches, .clientBatchesOnLoop].contains(consumer) && eventSize <= 128 ? 0.35 : 0.7
    }

    static func ratioGoal(_ consumer: Consumer, _ eventSize: Int) -> String {
        "≥ \(ratioGoalValue(consumer, eventSize))× curl -N"
    }

    /// `curl -N -s -o /dev/null` on `url`: wall time and bytes downloaded.
    static func curlDownload(_ url: URL) throws -> (seconds: Double, bytes: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-N", "-s", "-o", "/dev/null", "-w", "%{size_download}", url.absoluteString]
        let out = Pipe()
        process.standardOutput = out
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0, let bytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(description: "curl failed (\(process.terminationStatus)): \(text)")
        }
        return (seconds, bytes)
    }

    struct Consumed: Sendable {
        var events = 0
        var clean = false
        var end = "none"
    }

    /// Streams `url` through SSETransport on the shared loop; the consumer touches every
    /// event's data (counts its UTF-8 length) as an application would.
    static func consume(_ url: URL) -> Consumed {
        let env = ProcessInfo.processInfo.environment
        var request = TransportRequest(url: url)
        request.idleTimeout = .seconds(30)
        var options = SSEOptions()
        // Knobs for exploring: event buffer (events) and curl receive buffer (bytes).
        if let n = env["RT_BENCH_SSE_CAPACITY"].flatMap({ Int($0) }) { request.eventBufferCapacity = n }
        if let n = env["RT_BENCH_SSE_RECV_BUFFER"].flatMap({ Int($0) }) { options.receiveBufferSize = n }
        let transport = SSETransport(request: request, options: options)
        return waitFor {
            var c = Consumed()
            var dataBytes = 0
            for await e in TransportEvents(transport, capacity: transport.request.eventBufferCapacity) {
                switch e {
                case .message(let m):
                    c.events += 1
                    dataBytes &+= m.text?.utf8.count ?? 0
                case .ended(let end):
                    c.clean = end.clean && end.error == nil
                    c.end = end.error.map { "\($0)" } ?? "clean"
                default:
                    break
                }
            }
            Timing.blackHole(dataBytes)
            return c
        }
    }

    /// Runs `body` in a detached task and blocks this (benchmark) thread until it returns.
    static func waitFor(_ body: @escaping @Sendable () async -> Consumed) -> Consumed {
        let done = DispatchSemaphore(value: 0)
        let box = LockedValue(Consumed())
        Task.detached {
            let result = await body()
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return box.withLock { $0 }
    }

    /// Streams `url` through ``RealtimeClient`` (no reconnect: the stream's end is the end)
    /// and touches every event's data like ``consume(_:)``.
    static func consumeWithClient(_ url: URL, onLoop: Bool, batches: Bool = false) -> Consumed {
        let env = ProcessInfo.processInfo.environment
        var configuration = RealtimeClient.Configuration()
        configuration.idleTimeout = .seconds(30)
        configuration.reconnect.reconnectsAfterCleanEnd = false
        if let n = env["RT_BENCH_SSE_CAPACITY"].flatMap({ Int($0) }) { configuration.eventBufferCapacity = n }
        if let n = env["RT_BENCH_SSE_RECV_BUFFER"].flatMap({ Int($0) }) { configuration.sse.receiveBufferSize = n }
        let settings = configuration
        return waitFor {
            // `EventLoop.shared` is the client's loop: the consumer then runs on the I/O thread.
            if batches {
                return onLoop
                    ? await withTaskExecutorPreference(EventLoop.shared) { await streamBatches(url, settings) }
                    : await streamBatches(url, settings)
            }
            return onLoop
                ? await withTaskExecutorPreference(EventLoop.shared) { await streamClient(url, settings) }
                : await streamClient(url, settings)
        }
    }

    /// The consuming loop of ``consumeWithClient(_:onLoop:)``.
    static func streamClient(_ url: URL, _ settings: RealtimeClient.Configuration) async -> Consumed {
        var c = Consumed()
        var dataBytes = 0
        do {
            let client = try RealtimeClient(url: url, configuration: settings)
            for await e in client.events {
                switch e {
                case .event(let m):
                    c.events += 1
                    dataBytes &+= m.text?.utf8.count ?? 0
                case .closed(let close):
                    c.clean = close.clean
                    c.end = close.clean ? "clean" : "closed unclean"
                    if !close.willReconnect { client.close() }
                case .error(let error):
                    c.end = "\(error.error)"
                default:
                    break
                }
            }
        } catch {
            c.end = "\(error)"
        }
        Timing.blackHole(dataBytes)
        return c
    }

    /// The consuming loop of the batch rows: every event's data read in place (its bytes
    /// summed), no `String` built.
    static func streamBatches(_ url: URL, _ settings: RealtimeClient.Configuration) async -> Consumed {
        var c = Consumed()
        var checksum = 0
        do {
            let client = try RealtimeClient(url: url, configuration: settings)
            for await item in client.batches {
                switch item {
                case .messages(let batch):
                    c.events += batch.count
                    for message in batch {
                        checksum &+= message.withUnsafeBytes { $0.count &+ Int($0.last ?? 0) }
                    }
                case .closed(let close):
                    c.clean = close.clean
                    c.end = close.clean ? "clean" : "closed unclean"
                    if !close.willReconnect { client.close() }
                case .error(let error):
                    c.end = "\(error.error)"
                case .open:
                    break
                }
            }
        } catch {
            c.end = "\(error)"
        }
        Timing.blackHole(checksum)
        return c
    }

    /// User + system CPU seconds of this process (server and client threads together).
    static func processCPUSeconds() -> Double { cpuSeconds(RUSAGE_SELF.rawValue) }

    /// User + system CPU seconds of this process's threads called `name` (from
    /// /proc/self/task/*/stat; the I/O loop thread is "realtime-io").
    static func threadCPUSeconds(named name: String) -> Double {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var total = 0.0
        for task in tasks {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                stat[stat.index(after: open)..<close] == name
            else { continue }
            // Fields after the name: state is 3rd; utime and stime are the 14th and 15th.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            total += (user + system) / ticks
        }
        return total
    }

    /// User + system CPU seconds of reaped child processes (curl).
    static func childCPUSeconds() -> Double { cpuSeconds(RUSAGE_CHILDREN.rawValue) }

    static func cpuSeconds(_ who: Int32) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who), &usage)
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
        return s(usage.ru_utime) + s(usage.ru_stime)
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Samples resident memory on its own thread until stopped; returns the peak.
    final class PeakSampler: Sendable {
        private let state = LockedValue((running: true, peak: 0))
        private let finished = DispatchSemaphore(value: 0)

        func start() {
            let thread = Thread { [self] in
                while state.withLock({ $0.running }) {
                    let rss = SSETransportBenchmarks.residentBytes()
                    state.withLock { $0.peak = max($0.peak, rss) }
                    usleep(10_000)
                }
                finished.signal()
            }
            thread.start()
        }

        func stop() -> Int {
            state.withLock { $0.running = false }
            finished.wait()
            return state.withLock { max($0.peak, SSETransportBenchmarks.residentBytes()) }
        }
    }
}
