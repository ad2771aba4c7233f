import Foundation
import Realtime
import RealtimeTestServer
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeWebSocket

/// End-to-end WebSocket echo over loopback: messages per second through our
/// client (``WebSocketTransport`` on the shared event loop) against the in-process
/// ``TestServer`` `/ws` echo endpoint, next to Python's `websockets` client against the same
/// server in the same run.
///
/// Both clients pipeline the same way: one task sends `count` 16-byte text messages (each
/// `send` awaited, so the client's own back-pressure applies) while another reads the echoes;
/// the time runs from the first send to the last echo. These are wall-clock figures (the
/// work spans the client, the event loop and the server threads), best of 3 runs.
enum WebSocketEchoBenchmarks {
    static let suite = BenchmarkSuite(name: "ws-echo", benchmarks: [
        Benchmark(name: "loopback") { try loopback() },
        Benchmark(name: "sequential-send") { try WebSocketSequentialSendBenchmarks.sequential() },
    ])

    static let count = 50_000
    static let payload = "0123456789abcdef"
    /// Sends in flight at once on the Swift side.
    static let window = 64

    static func loopback() throws -> [Measurement] {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let url = server.wsURL("/ws")

        // Alternate the two clients, best of 3 each, so a burst of load on a shared machine
        // hits both rather than one.
        var swiftBest = Double.infinity
        var swiftCorrect = true
        var pythonBest: Result<Double, PythonFailure> = .failure(PythonFailure(message: "not run"))
        for _ in 0..<3 {
            let (seconds, received) = blocking { await swiftEcho(url: url, count: count) }
            swiftBest = min(swiftBest, seconds)
            swiftCorrect = swiftCorrect && received == count
            switch (pythonEcho(url: url, count: count), pythonBest) {
            case (.success(let s), .success(let best)): pythonBest = .success(min(s, best))
            case (.success(let s), .failure): pythonBest = .success(s)
            case (.failure(let e), .failure): pythonBest = .failure(e)
            case (.failure, .success): break
            }
        }
        var swift = Measurement(
            name: "ws-echo/swift-realtime", bytes: count * payload.utf8.count, items: count, seconds: swiftBest)
        swift.correct = swiftCorrect
        swift.note = "wall time, \(count) × 16 B text, pipelined"

        var results = [swift]
        switch pythonBest {
        case .success(let pythonSeconds):
            var python = Measurement(
                name: "ws-echo/python-websockets", bytes: count * payload.utf8.count, items: count, seconds: pythonSeconds)
            python.note = "wall time, same server, same pattern"
            let ratio = pythonSeconds / swiftBest
            results[0].extra = [("× python", ratio)]
            results[0].goals = [("≥ 5× python", ratio >= 5)]
            results.append(python)
        case .failure(let error):
            results[0].note += "; python client unavailable: \(error.message)"
        }
        return results
    }

    /// Runs async work from the synchronous benchmark harness.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    final class ResultBox<T>: @unchecked Sendable {
        var value: T?
    }

    /// One connection: a sender task and this task reading echoes. Returns seconds and echoes.
    static func swiftEcho(url: URL, count: Int) async -> (Double, Int) {
        var options = WebSocketOptions()
        options.heartbeat = .disabled
        options.outboundQueueCapacity = 256
        var request = TransportRequest(url: url)
        request.eventBufferCapacity = 1024
        let transport = WebSocketTransport(request: request, options: options, eventLoop: .shared)
        var iterator = TransportEvents(transport, capacity: request.eventBufferCapacity).makeAsyncIterator()
        guard case .opened? = await iterator.next() else { return (.infinity, 0) }
        let start = ContinuousClock.now
        // Up to `window` sends in flight: a `send` returns only once its frame is written to the
        // socket (a hop to the event-loop thread and back), so one awaited send at a time would
        // measure that hop, not throughput.
        let sender = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<count {
                    if i >= window { try await group.next() }
                    group.addTask { try await transport.send(.text(payload)) }
                }
                try await group.waitForAll()
            }
        }
        var received = 0
        while received < count, let event = await iterator.next() {
            if case .message = event { received += 1 } else if case .ended = event { break }
        }
        let elapsed = ContinuousClock.now - start
        _ = try? await sender.value
        transport.close()
        while await iterator.next() != nil {}
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18, received)
    }

    struct PythonFailure: Error {
        var message: String
    }

    /// The same pattern with Python `websockets` (from the repository's `.venv`).
    static func pythonEcho(url: URL, count: Int) -> Result<Double, PythonFailure> {
        runPython(pythonClient, url: url, count: count, payload: payload)
    }

    /// Runs a Python client script (`url count payload` as arguments) that prints seconds.
    static func runPython(_ script: String, url: URL, count: Int, payload: String) -> Result<Double, PythonFailure> {
        let python = FileManager.default.currentDirectoryPath + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return .failure(PythonFailure(message: "no .venv (run make deps)"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, url.absoluteString, String(count), payload]
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch { return .failure(PythonFailure(message: "\(error)")) }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let seconds = Double(text) else {
            return .failure(PythonFailure(message: "python client failed (\(text))"))
        }
        return .success(seconds)
    }

    /// Best of 2 runs in one process (the first warms the interpreter up); prints seconds.
    static let pythonClient = """
        import asyncio, sys, time
        from websockets.asyncio.client import connect

        async def run(url, count, payload):
            async with connect(url, max_size=None, ping_interval=None, compression=None) as ws:
                async def sender():
                    for _ in range(count):
                        await ws.send(payload)
                start = time.perf_counter()
                task = asyncio.create_task(sender())
                for _ in range(count):
                    await ws.recv()
                elapsed = time.perf_counter() - start
                await task
                return elapsed

        url, count, payload = sys.argv[1], int(sys.argv[2]), sys.argv[3]
        print(min(asyncio.run(run(url, count, payload)) for _ in range(2)))
        """
}
