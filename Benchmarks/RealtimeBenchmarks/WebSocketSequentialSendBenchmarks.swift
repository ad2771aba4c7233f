import Foundation
import Realtime
import RealtimeTestServer

/// The natural sender, `for m in msgs { try await client.send(m) }`, through
/// `RealtimeClient` against the Python `websockets` echo peer (Tests/Peers/ws_websockets.py,
/// another process), next to the same loop with `send(_:flush: true)` (each send waits
/// until its frame is written: one trip through the event-loop thread per message, what
/// every `send` did before sends returned on acceptance) and to Python `websockets`' own
/// plain loop against the same peer, in the same run. The Python peer answers ~70 K
/// messages/s on this machine, which bounds every client against it; the same three loops
/// against the in-process ``TestServer`` show the client's own rate.
///
/// Each client sends `count` 16-byte text messages one after the other while a second task
/// reads the echoes; the time runs from the first send to the last echo. Best of 3,
/// alternated so a burst of load on a shared machine hits every client.
enum WebSocketSequentialSendBenchmarks {
    static let count = 20_000
    static let payload = "0123456789abcdef"

    static func sequential() throws -> [Measurement] {
        let peer = try EchoPeer.start()
        defer { peer.stop() }
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        return run(url: URL(string: "ws://127.0.0.1:\(peer.port)/echo")!, label: "python-peer")
            + run(url: server.wsURL("/ws"), label: "test-server")
    }

    /// The three loops against one server, alternated, best of 3 each.
    static func run(url: URL, label: String) -> [Measurement] {
        var natural = Double.infinity, flushed = Double.infinity
        var correct = true
        var python: Result<Double, WebSocketEchoBenchmarks.PythonFailure> = .failure(.init(message: "not run"))
        for _ in 0..<3 {
            let (n, nReceived) = WebSocketEchoBenchmarks.blocking { await clientLoop(url: url, flush: false) }
            let (f, fReceived) = WebSocketEchoBenchmarks.blocking { await clientLoop(url: url, flush: true) }
            natural = min(natural, n)
            flushed = min(flushed, f)
            correct = correct && nReceived == count && fReceived == count
            if case .success(let s) = pythonLoop(url: url) {
                if case .success(let best) = python { python = .success(min(s, best)) } else { python = .success(s) }
            } else if case .failure = python {
                python = pythonLoop(url: url)
            }
        }
        return measurements(label: label, natural: natural, flushed: flushed, correct: correct, python: python)
    }

    static func measurements(
        label: String, natural: Double, flushed: Double, correct: Bool,
        python: Result<Double, WebSocketEchoBenchmarks.PythonFailure>
    ) -> [Measurement] {
        let bytes = count * payload.utf8.count
        var loop = Measurement(name: "ws-echo/sequential-\(label)", bytes: bytes, items: count, seconds: natural)
        loop.correct = correct
        loop.note = "RealtimeClient, \(count) × 16 B, send() returns on acceptance"
        var wait = Measurement(name: "ws-echo/sequential-\(label)-flush", bytes: bytes, items: count, seconds: flushed)
        wait.note = "same loop with send(_:flush: true): a round trip through the I/O thread per message"
        loop.extra = [("× flush", flushed / natural)]
        var results = [loop, wait]
        switch python {
        case .success(let seconds):
            var p = Measurement(name: "ws-echo/sequential-\(label)-python", bytes: bytes, items: count, seconds: seconds)
            p.note = "Python websockets, `for m in msgs: await ws.send(m)`, same server"
            results[0].extra.append(("× python", seconds / natural))
            results[0].goals = [("≥ 3× python", seconds / natural >= 3)]
            results.append(p)
        case .failure(let error):
            results[0].note += "; python client unavailable: \(error.message)"
        }
        return results
    }

    /// One client, the natural loop, a reader task for the echoes. Returns seconds and echoes.
    static func clientLoop(url: URL, flush: Bool) async -> (Double, Int) {
        var configuration = RealtimeClient.Configuration()
        configuration.heartbeat = .disabled
        configuration.webSocket.compression = .disabled
        configuration.eventBufferCapacity = 1024
        guard let client = try? RealtimeClient(url: url, configuration: configuration) else { return (.infinity, 0) }
        var events = client.events.makeAsyncIterator()
        guard case .open? = await events.next() else { return (.infinity, 0) }
        let start = ContinuousClock.now
        let sender = Task {
            for _ in 0..<count { try await client.send(.text(payload), flush: flush) }
        }
        var received = 0
        while received < count, let event = await events.next() {
            if case .event = event { received += 1 } else if case .closed = event { break }
        }
        let elapsed = ContinuousClock.now - start
        _ = try? await sender.value
        client.close()
        while await events.next() != nil {}
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18, received)
    }

    /// Python `websockets`' plain loop against the same peer (best of 2 in one process).
    static func pythonLoop(url: URL) -> Result<Double, WebSocketEchoBenchmarks.PythonFailure> {
        WebSocketEchoBenchmarks.runPython(WebSocketEchoBenchmarks.pythonClient, url: url, count: count, payload: payload)
    }
}

/// Tests/Peers/ws_websockets.py in a child process, for the duration of a benchmark.
struct EchoPeer {
    let process: Process
    let input: Pipe
    let port: Int

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func start() throws -> EchoPeer {
        let root = FileManager.default.currentDirectoryPath
        let python = root + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw Failure(description: "no .venv (run make deps)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root + "/Tests/Peers/ws_websockets.py", "--host", "127.0.0.1"]
        process.currentDirectoryURL = URL(fileURLWithPath: root + "/Tests/Peers")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // The peer prints `PORT <n>` once it listens, and exits when its stdin closes.
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 10 { line.append(byte) }
        guard let port = Int(String(decoding: line, as: UTF8.self).dropFirst("PORT ".count)) else {
            process.terminate()
            throw Failure(description: "the echo peer did not start: \(String(decoding: line, as: UTF8.self))")
        }
        return EchoPeer(process: process, input: input, port: port)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
