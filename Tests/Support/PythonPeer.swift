import Dispatch
import Foundation
import RealtimeCore

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

    private struct State {
        var process: Process?
        var stdin: FileHandle?
        var exited = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state: LockedValue<State>

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

        let process = Process()
        process.executableURL = python
        process.arguments = [scriptURL.path, "--host", host] + arguments
        process.currentDirectoryURL = peersDirectory
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe

        let exitSignal = ExitSignal()
        process.terminationHandler = { process in
            // Returns at once (the child has exited), and is what releases the Process:
            // Foundation keeps it in a cycle with its run-loop source until someone waits
            // (LeakSanitizer saw every peer's Process, pipes and environment leak).
            process.waitUntilExit()
            exitSignal.fire()
        }
        do {
            try process.run()
        } catch {
            throw PythonPeerError.launchFailed(script, "\(error)")
        }
        // Our copies of the child's ends must close, or EOF never reaches either side.
        try? stdinPipe.fileHandleForReading.close()
        try? stdoutPipe.fileHandleForWriting.close()

        let pid = process.processIdentifier
        let line = await readPortLine(from: stdoutPipe.fileHandleForReading, pid: pid, timeout: timeout)
        guard let port = line.port else {
            try? stdinPipe.fileHandleForWriting.close()
            kill(pid, SIGKILL)
            throw PythonPeerError.noPort(script, timedOut: line.timedOut, output: line.text)
        }
        let peer = PythonPeer(
            script: script,
            host: host,
            port: port,
            state: State(process: process, stdin: stdinPipe.fileHandleForWriting)
        )
        exitSignal.attach(peer)
        return peer
    }

    private init(script: String, host: String, port: Int, state: consuming sending State) {
        self.script = script
        self.host = host
        self.port = port
        self.state = LockedValue(state)
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
        let (process, stdin) = state.withLock { s -> (Process?, FileHandle?) in
            defer { s.stdin = nil }
            return (s.exited ? nil : s.process, s.stdin)
        }
        try? stdin?.close()
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGTERM)
        }
    }

    /// Stops the peer and waits until it has exited; SIGKILL after `grace` (default 5 s).
    public func stop(grace: Duration = .seconds(5)) async {
        terminate()
        let pid = state.withLock { $0.process?.processIdentifier }
        if let pid {
            let nanoseconds = grace.components.seconds * 1_000_000_000 + grace.components.attoseconds / 1_000_000_000
            let killer = DispatchWorkItem { [weak self] in
                guard let self, !self.state.withLock({ $0.exited }) else { return }
                kill(pid, SIGKILL)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: killer)
            await waitForExit()
            killer.cancel()
        }
    }

    /// Whether the peer process has exited.
    public var hasExited: Bool {
        state.withLock { $0.exited }
    }

    private func waitForExit() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if s.exited { return true }
                s.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    fileprivate func markExited() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.exited = true
            s.stdin = nil
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
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

/// Bridges the process termination handler (which may run before the peer object exists)
/// to ``PythonPeer/markExited()``.
private final class ExitSignal: Sendable {
    private struct State {
        var fired = false
        weak var peer: PythonPeer?
    }
    private let state = LockedValue(State())

    func fire() {
        let peer = state.withLock { s -> PythonPeer? in
            s.fired = true
            return s.peer
        }
        peer?.markExited()
    }

    func attach(_ peer: PythonPeer) {
        let fired = state.withLock { s -> Bool in
            s.peer = peer
            return s.fired
        }
        if fired { peer.markExited() }
    }
}

/// Reads the first line of `handle` on a Dispatch thread (blocking reads must not hold a
/// cooperative-pool thread); a timer kills the child on timeout, which ends the read with EOF.
/// After the line, the rest of stdout is drained so a chatty peer never blocks on a full pipe.
private func readPortLine(from handle: FileHandle, pid: Int32, timeout: Duration) async -> PortLine {
    let timedOut = LockedValue(false)
    let finished = LockedValue(false)
    let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) {
        guard !finished.withLock({ $0 }) else { return }
        timedOut.withLock { $0 = true }
        kill(pid, SIGKILL)
    }
    return await withCheckedContinuation { (continuation: CheckedContinuation<PortLine, Never>) in
        // A thread of its own: this loop blocks in read(2) for the peer's whole life, and
        // Dispatch's global threads on Linux are the ones Swift concurrency runs on (two on
        // this machine): a few peers reading there stalled every other test for ~20 s.
        Thread {
            var buffer = Data()
            var resumed = false
            while true {
                let chunk = readRetryingInterrupts(handle.fileDescriptor)
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

/// One `read(2)` of up to 4 KiB, retried on EINTR. Foundation's `availableData` traps on an
/// interrupted read, which would take the whole test process down when any signal arrives.
private func readRetryingInterrupts(_ fd: Int32) -> Data {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 { return Data(buffer[0..<n]) }
        if n < 0 && errno == EINTR { continue }
        return Data()
    }
}
