import Dispatch
import Foundation
import RealtimeCore
import RealtimeTestServer

/// A third-party peer server from `Tests/Peers/` running as a child Python process.
///
/// The peers are reference implementations we test against (Python `websockets`, aiohttp,
/// `sse-starlette` under uvicorn, `aiohttp-sse`). They live in the repository's `.venv`,
/// which `make test` / `scripts/install-deps.sh` creates; when it is missing, ``start(script:host:arguments:timeout:)``
/// throws a ``PythonPeerError`` saying so, so a test fails instead of skipping.
///
/// Launch contract (see `Tests/Peers/peer_common.py`): the script binds `host` port 0,
/// prints `PORT <n>` as its first stdout line, and exits when its stdin closes or on
/// SIGTERM. The child's stdin is a pipe owned by this object, so a peer never outlives the
/// test process, even if the test crashes. The child's stderr goes to the test's stderr.
///
/// Scripts: `ws_websockets.py`, `ws_aiohttp.py`, `sse_starlette_app.py`, `sse_aiohttp.py`
/// (their paths and query parameters are documented at the top of each script).
///
/// ```swift
/// let peer = try await PythonPeer.start(script: "ws_websockets.py")
/// defer { peer.terminate() }
/// let url = peer.url(scheme: "ws", path: "/echo")
/// ...
/// await peer.stop()
/// ```
public final class PythonPeer: Sendable {
    /// The script name inside `Tests/Peers/`.
    public let script: String
    /// The loopback address the peer listens on (`127.0.0.1` unless started with another).
    public let host: String
    /// The TCP port the peer bound.
    public let port: Int

    private let process: SpawnedProcess

    /// The repository root, found from this file's location (`Tests/Support/PythonPeer.swift`).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `.venv/bin/python` in the repository root.
    public static var python: URL {
        repositoryRoot.appendingPathComponent(".venv/bin/python")
    }

    /// Starts `Tests/Peers/<script>` and waits until it reports its port.
    ///
    /// - Parameters:
    ///   - script: a file name in `Tests/Peers/`, such as `"ws_websockets.py"`.
    ///   - host: the loopback address to bind (`"127.0.0.1"` or `"::1"`).
    ///   - arguments: extra arguments for the script (e.g. `--tls-cert`, `--tls-key`).
    ///   - timeout: how long to wait for the `PORT` line; default 30 s (a cold start of
    ///     aiohttp or uvicorn on a busy 2-core machine takes a few seconds).
    /// - Throws: ``PythonPeerError`` when `.venv` or the script is missing, or the peer
    ///   exits or stays silent instead of printing its port.
    public static func start(
        script: String,
        host: String = "127.0.0.1",
        arguments: [String] = [],
        timeout: Duration = .seconds(30)
    ) async throws -> PythonPeer {
        let fileManager = FileManager.default
        guard fileManager.isExecutableFile(atPath: python.path) else {
            throw PythonPeerError.missingEnvironment(python.path)
        }
        let peersDirectory = repositoryRoot.appendingPathComponent("Tests/Peers")
        let scriptURL = peersDirectory.appendingPathComponent(script)
        guard fileManager.fileExists(atPath: scriptURL.path) else {
            throw PythonPeerError.missingScript(scriptURL.path)
        }

        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(
                python.path, [scriptURL.path, "--host", host] + arguments, environment: environment,
                directory: peersDirectory.path, input: .pipe, output: .pipe, error: .inherit)
        } catch {
            throw PythonPeerError.launchFailed(script, "\(error)")
        }
        let line = await readPortLine(from: process.standardOutput!, process: process, timeout: timeout)
        guard let port = line.port else {
            try? process.standardInput?.close()
            process.kill(SIGKILL)
            throw PythonPeerError.noPort(script, timedOut: line.timedOut, output: line.text)
        }
        return PythonPeer(script: script, host: host, port: port, process: process)
    }

    private init(script: String, host: String, port: Int, process: SpawnedProcess) {
        self.script = script
        self.host = host
        self.port = port
        self.process = process
    }

    deinit {
        terminate()
    }

    /// A URL on this peer, e.g. `url(scheme: "ws", path: "/echo")` →
    /// `ws://127.0.0.1:PORT/echo` (IPv6 hosts in brackets).
    public func url(scheme: String, path: String = "/") -> URL {
        let authority = host.contains(":") ? "[\(host)]" : host
        return URL(string: "\(scheme)://\(authority):\(port)\(path)")!
    }

    /// Asks the peer to exit (closes its stdin and sends SIGTERM) without waiting.
    public func terminate() {
        try? process.standardInput?.close()
        process.kill(SIGTERM)
    }

    /// Stops the peer and waits until it has exited; SIGKILL after `grace` (default 5 s).
    public func stop(grace: Duration = .seconds(5)) async {
        terminate()
        _ = await process.exitOrKill(within: grace)
    }

    /// Whether the peer process has exited.
    public var hasExited: Bool {
        !process.isRunning
    }
}

/// The first stdout line of a peer, or why there is none.
private struct PortLine: Sendable {
    var text: String
    var timedOut: Bool

    /// The `n` of a `PORT n` line.
    var port: Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, parts[0] == "PORT", let port = Int(parts[1]), (1...65535).contains(port) else {
            return nil
        }
        return port
    }
}

/// Reads the first line of `handle` on a Dispatch thread (blocking reads must not hold a
/// cooperative-pool thread); a timer kills the child on timeout, which ends the read with EOF.
/// After the line, the rest of stdout is drained so a chatty peer never blocks on a full pipe.
private func readPortLine(from handle: FileHandle, process: SpawnedProcess, timeout: Duration) async -> PortLine {
    let timedOut = LockedValue(false)
    let finished = LockedValue(false)
    let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) {
        guard !finished.withLock({ $0 }) else { return }
        timedOut.withLock { $0 = true }
        process.kill(SIGKILL)
    }
    return await withCheckedContinuation { (continuation: CheckedContinuation<PortLine, Never>) in
        // A thread of its own: this loop blocks in read(2) for the peer's whole life, and
        // Dispatch's global threads on Linux are the ones Swift concurrency runs on (two on
        // this machine): a few peers reading there stalled every other test for ~20 s.
        Thread {
            var buffer = Data()
            var resumed = false
            while true {
                let chunk = Data(SpawnedProcess.readSome(handle.fileDescriptor, upTo: 4096))
                if chunk.isEmpty { break }  // EOF or error: the peer exited (or was killed on timeout).
                if resumed { continue }  // Drain and discard after the first line.
                buffer.append(chunk)
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    finished.withLock { $0 = true }
                    let text = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    resumed = true
                    continuation.resume(returning: PortLine(text: text, timedOut: false))
                } else if buffer.count > 4096 {
                    break  // Not a launch line; treat like EOF.
                }
            }
            if !resumed {
                finished.withLock { $0 = true }
                let text = String(decoding: buffer.prefix(200), as: UTF8.self)
                continuation.resume(returning: PortLine(text: text, timedOut: timedOut.withLock { $0 }))
            }
            try? handle.close()
        }.start()
    }
}
