import Foundation
import Realtime
import RealtimeTestServer

/// Delivery latency over loopback, for the streams this SDK is for (LLM tokens, ticks, chat):
/// not how many events per second, but how long one takes from the server's `write` to the
/// consumer's hands, at a steady, modest rate.
///
/// - `sse-*`: the in-process ``TestServer`` writes one event per millisecond whose data is
///   the write time (`DispatchTime` nanoseconds; same process, same clock); the consumer
///   takes `now − stamp` as each event arrives through ``RealtimeClient``.
/// - `ws-rtt-*`: one 16-byte text message at a time to the `/ws` echo endpoint; the time
///   from `send` to the echo's arrival through ``RealtimeClient``.
///
/// `pool` consumes on the cooperative pool (the default), `loop` on the I/O thread
/// (`withTaskExecutorPreference(EventLoop.shared)`). Percentiles in microseconds, over all
/// samples of one run (the first 50 are warm-up and not counted).
enum LatencyBenchmarks {
    static let suite = BenchmarkSuite(name: "latency", benchmarks: [
        Benchmark(name: "sse-pool") { [try sse(onLoop: false)] },
        Benchmark(name: "sse-loop") { [try sse(onLoop: true)] },
        Benchmark(name: "ws-rtt-pool") { [try webSocketRoundTrip(onLoop: false)] },
        Benchmark(name: "ws-rtt-loop") { [try webSocketRoundTrip(onLoop: true)] },
    ])

    static let count = 2000
    static let warmUp = 50

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    static func sse(onLoop: Bool) throws -> Measurement {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        server.setHandler(path: "/stamped") { writer in
            try writer.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            for i in 0..<(count + warmUp) {
                try writer.write("id: \(i)\ndata: \(nanoseconds())\n\n")
                try writer.sleep(milliseconds: 1)
            }
            try writer.finish()
        }
        var configuration = RealtimeClient.Configuration()
        configuration.reconnect = .finite
        let client = try RealtimeClient(url: server.url("/stamped"), configuration: configuration)
        let started = nanoseconds()
        let samples = WebSocketEchoBenchmarks.blocking {
            await onExecutor(onLoop) {
                var samples: [UInt64] = []
                samples.reserveCapacity(count + warmUp)
                for await event in client.events {
                    guard case .event(let m) = event, let stamp = m.text.flatMap({ UInt64($0) }) else { continue }
                    samples.append(nanoseconds() &- stamp)
                }
                return samples
            }
        }
        return try measurement("latency/sse-\(onLoop ? "loop" : "pool")", samples, since: started, what: "server write → consumer")
    }

    static func webSocketRoundTrip(onLoop: Bool) throws -> Measurement {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        var configuration = RealtimeClient.Configuration()
        configuration.reconnect = .never
        let client = try RealtimeClient(url: server.wsURL("/ws"), configuration: configuration)
        let started = nanoseconds()
        let samples = WebSocketEchoBenchmarks.blocking {
            await onExecutor(onLoop) {
                var samples: [UInt64] = []
                samples.reserveCapacity(count + warmUp)
                var sentAt: UInt64 = 0
                for await event in client.events {
                    switch event {
                    case .open:
                        sentAt = nanoseconds()
                        try? await client.send(.text("0123456789abcdef"))
                    case .event:
                        samples.append(nanoseconds() &- sentAt)
                        if samples.count == count + warmUp {
                            client.close()
                        } else {
                            sentAt = nanoseconds()
                            try? await client.send(.text("0123456789abcdef"))
                        }
                    default:
                        break
                    }
                }
                return samples
            }
        }
        return try measurement("latency/ws-rtt-\(onLoop ? "loop" : "pool")", samples, since: started, what: "send → echo")
    }

    /// Runs `body` on the I/O loop (task executor preference) or where it is.
    static func onExecutor<T: Sendable>(_ onLoop: Bool, _ body: @escaping @Sendable () async -> T) async -> T {
        onLoop ? await withTaskExecutorPreference(EventLoop.shared) { await body() } : await body()
    }

    static func measurement(_ name: String, _ all: [UInt64], since started: UInt64, what: String) throws -> Measurement {
        guard all.count == count + warmUp else {
            throw Failure(description: "\(name): \(all.count) of \(count + warmUp) samples")
        }
        let sorted = all.dropFirst(warmUp).sorted()
        func percentile(_ p: Double) -> Double {
            Double(sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]) / 1000
        }
        var m = Measurement(name: name, bytes: 0, items: all.count, seconds: Double(nanoseconds() - started) / 1e9)
        m.extra = [
            ("p50 µs", percentile(0.50)), ("p90 µs", percentile(0.90)), ("p99 µs", percentile(0.99)),
            ("p99.9 µs", percentile(0.999)), ("max µs", Double(sorted.last ?? 0) / 1000),
        ]
        m.note = "\(what), \(count) samples"
        return m
    }
}
