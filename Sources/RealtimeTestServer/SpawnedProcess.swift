#if os(Linux)
import CLinux
import Dispatch
import Glibc
import Foundation
import RealtimeCore

/// A child process for tests and tools, started with `posix_spawn` so that it inherits no
/// descriptor of ours but the three it is given.
///
/// `Foundation.Process` lists the open descriptors and then closes them in the child, and
/// watches for the exit through a socket that every child inherits until it execs: with
/// many tests spawning at once, a child started by one test inherits another test's pipe or
/// exit socket, and that test then waits for EOF or for the exit until the unrelated child
/// ends (a long-lived server: minutes). Here every child closes all descriptors from 3 up
/// before it execs, our own ends are close-on-exec, and the exit is read with `waitpid` on a
/// thread of the child's own, so nothing one child does can hold up another's.
package final class SpawnedProcess: Sendable {
    /// What the child's standard input is.
    package enum Input: Sendable {
        case null
        /// A pipe whose write end is ``standardInput``.
        case pipe
        /// A file read from its start.
        case file(String)
        /// These bytes, written through a pipe by a thread of their own, then end of file.
        case bytes([UInt8])
    }

    /// What the child's standard output or error is.
    package enum Output: Sendable {
        case null
        /// A pipe whose read end is ``standardOutput`` or ``standardError``.
        case pipe
        /// A file, created or truncated.
        case file(String)
        /// For standard error only: the same as standard output.
        case standardOutput
        /// Ours (the child writes where we do).
        case inherit
    }

    /// How the child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        /// The exit status, or the number of the signal that ended it.
        package var status: Int32 {
            switch self {
            case .exited(let s), .signaled(let s): s
            }
        }

        package var description: String {
            switch self {
            case .exited(let s): "exited \(s)"
            case .signaled(let s): "killed by signal \(s)"
            }
        }
    }

    private struct State {
        var termination: Termination?
        var waiters: [Int: CheckedContinuation<Termination?, Never>] = [:]
        var nextWaiter = 0
        var onExit: [@Sendable (Termination) -> Void] = []
    }

    package let processIdentifier: pid_t
    /// The write end of the child's standard input (``Input/pipe``).
    package let standardInput: FileHandle?
    /// The read end of the child's standard output (``Output/pipe``).
    package let standardOutput: FileHandle?
    /// The read end of the child's standard error (``Output/pipe``).
    package let standardError: FileHandle?
    private let state = LockedValue(State())
    private let exited = DispatchSemaphore(value: 0)

    /// Starts `executable` (a path; a bare name is looked up in `PATH`) with `arguments`.
    /// `environment` replaces ours when given; `directory` is the child's working directory.
    package init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        directory: String? = nil, input: Input = .null, output: Output = .null, error: Output = .null
    ) throws {
        var spawn = try SpawnActions()
        defer { spawn.destroy() }
        let stdin = try spawn.input(input)
        let stdout = try spawn.output(output, to: STDOUT_FILENO)
        let stderr = try spawn.output(error, to: STDERR_FILENO)
        try spawn.finish(directory: directory)
        processIdentifier = try spawn.start(executable, arguments, environment: environment)
        if case .bytes(let bytes) = input, let stdin {
            Self.feed(bytes, to: stdin)
            standardInput = nil
        } else {
            standardInput = stdin
        }
        standardOutput = stdout
        standardError = stderr
        let pid = processIdentifier
        Thread { [state, exited] in
            let termination = Self.reap(pid)
            let (waiters, handlers) = state.withLock { s in
                s.termination = termination
                defer { s.waiters = [:]; s.onExit = [] }
                return (Array(s.waiters.values), s.onExit)
            }
            exited.signal()
            for w in waiters { w.resume(returning: termination) }
            for h in handlers { h(termination) }
        }.start()
    }

    /// Writes `bytes` to `handle` and closes it, on a thread of its own (the child may read
    /// them only as it goes); stops early when the child closes its end.
    private static func feed(_ bytes: [UInt8], to handle: FileHandle) {
        Thread {
            _ = bytes.withUnsafeBytes { writeAll($0, to: handle.fileDescriptor) }
            try? handle.close()
        }.start()
    }

    /// Writes all of `bytes` to a pipe (a child's standard input), retrying after EINTR; false
    /// when the child closed its end first. Such a write raises SIGPIPE, whose default action
    /// ends the whole process (a child that exits before reading, like `openssl s_client`
    /// refusing a certificate, killed a test run): the signal is blocked on this thread for
    /// the write, and the one the write raised is taken before the thread's mask is restored.
    @discardableResult
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                if n < 0 && errno == EPIPE {
                    var now = timespec()
                    _ = sigtimedwait(&pipeSignal, nil, &now)
                }
                return false
            }
        }
        return true
    }

    /// `waitpid` until the child ends (retried after EINTR).
    private static func reap(_ pid: pid_t) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            if errno != EINTR { return .exited(-1) }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    /// How the child ended, or nil while it runs.
    package var termination: Termination? { state.withLock { $0.termination } }

    package var isRunning: Bool { termination == nil }

    /// The exit status, or the signal number; -1 while the child runs.
    package var terminationStatus: Int32 { termination?.status ?? -1 }

    /// Sends `signal` (default SIGTERM) unless the child has been reaped.
    package func kill(_ signal: Int32 = SIGTERM) {
        state.withLock { s in
            if s.termination == nil { _ = Glibc.kill(processIdentifier, signal) }
        }
    }

    /// Blocks the calling thread until the child ends.
    @discardableResult
    package func waitUntilExit() -> Termination {
        exited.wait()
        exited.signal()
        return termination!
    }

    /// Runs `handler` once the child ended (at once if it has), on the reaping thread.
    package func onExit(_ handler: @escaping @Sendable (Termination) -> Void) {
        let done: Termination? = state.withLock { s in
            if s.termination == nil { s.onExit.append(handler) }
            return s.termination
        }
        if let done { handler(done) }
    }

    /// Waits until the child ends; nil when `timeout` passes first (the child keeps running).
    package func exit(within timeout: Duration) async -> Termination? {
        await withCheckedContinuation { (c: CheckedContinuation<Termination?, Never>) in
            let id: Int? = state.withLock { s in
                guard s.termination == nil else { return nil }
                s.nextWaiter += 1
                s.waiters[s.nextWaiter] = c
                return s.nextWaiter
            }
            guard let id else { return c.resume(returning: termination) }
            afterTimeout(timeout) { [state] in
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
            }
        }
    }

    /// Runs `action` on a thread of its own if the child still runs after `timeout`. A timed
    /// semaphore wait, not a Dispatch timer: Dispatch opens a timer descriptor on first use,
    /// which tests that count descriptors would see as a leak.
    private func afterTimeout(_ timeout: Duration, _ action: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        Thread { [exited] in
            if exited.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                action()
            } else {
                exited.signal()  // passed on to the next waiter
            }
        }.start()
    }

    /// Waits until the child ends; after `timeout` kills it (SIGKILL) and returns nil.
    package func exitOrKill(within timeout: Duration) async -> Termination? {
        if let t = await exit(within: timeout) { return t }
        kill(SIGKILL)
        _ = await exit(within: .seconds(3600))
        return nil
    }

    /// Everything read from `handle` until end of file, retrying reads that a signal
    /// interrupted (`FileHandle.readDataToEndOfFile()` traps on EINTR).
    package static func readToEnd(_ handle: FileHandle?) -> [UInt8] {
        guard let fd = handle?.fileDescriptor else { return [] }
        var bytes: [UInt8] = []
        forEachChunk(fd) { bytes += $0 }
        return bytes
    }

    /// One `read(2)` of up to `limit` bytes, retried when a signal interrupts it; empty at
    /// end of file or on an error. (Foundation's `availableData` traps on EINTR.)
    package static func readSome(_ fd: Int32, upTo limit: Int = 16384) -> ArraySlice<UInt8> {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 { return buffer[0..<n] }
            if n < 0 && errno == EINTR { continue }
            return []
        }
    }

    /// Calls `body` with each chunk read from `fd` until end of file or an error.
    package static func forEachChunk(_ fd: Int32, _ body: (ArraySlice<UInt8>) -> Void) {
        while true {
            let chunk = readSome(fd)
            if chunk.isEmpty { return }
            body(chunk)
        }
    }

    /// What ``run(_:_:environment:directory:input:error:timeout:)`` saw.
    package struct Completed: Sendable {
        /// How the child ended; nil when it was killed at the timeout.
        package var termination: Termination?
        package var output: [UInt8]
        package var errorOutput: [UInt8]
        package var outputText: String { String(decoding: output, as: UTF8.self) }
        package var errorText: String { String(decoding: errorOutput, as: UTF8.self) }
    }

    /// Runs a command to completion with its standard output (and error, unless `error` says
    /// otherwise) collected; SIGKILL after `timeout`. Blocking: call it from a thread of its
    /// own (``offloaded(_:)`` in tests), never from the cooperative pool.
    package static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        directory: String? = nil, input: Input = .null, error: Output = .pipe, timeout: Duration
    ) throws -> Completed {
        let p = try SpawnedProcess(
            executable, arguments, environment: environment, directory: directory, input: input, output: .pipe, error: error)
        let killed = LockedValue(false)
        p.afterTimeout(timeout) { [weak p] in
            guard let p, p.isRunning else { return }
            killed.withLock { $0 = true }
            p.kill(SIGKILL)
        }
        let errorOutput = LockedValue<[UInt8]>([])
        let errorRead = DispatchSemaphore(value: 0)
        Thread {
            errorOutput.withLock { $0 = readToEnd(p.standardError) }
            errorRead.signal()
        }.start()
        let output = readToEnd(p.standardOutput)
        errorRead.wait()
        try? p.standardOutput?.close()
        try? p.standardError?.close()
        let end = p.waitUntilExit()
        return Completed(
            termination: killed.withLock { $0 } ? nil : end, output: output, errorOutput: errorOutput.withLock { $0 })
    }

    deinit {
        // The reaping thread holds no reference to us; a child still running is ended.
        state.withLock { s in
            if s.termination == nil { _ = Glibc.kill(processIdentifier, SIGKILL) }
        }
    }
}

/// The file actions and attributes of one `posix_spawn`, and the descriptors opened for it.
private struct SpawnActions {
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    /// The child's ends of our pipes: closed here once the child has its copies.
    var childEnds: [Int32] = []

    init() throws {
        try Self.check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        try Self.check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        // The child starts with no signal blocked and SIGPIPE at its default, whatever the
        // spawning thread had.
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        try Self.check(
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)),
            "posix_spawnattr_setflags")
    }

    static func check(_ result: Int32, _ what: String) throws {
        guard result == 0 else { throw SpawnFailed(description: "\(what): \(String(cString: strerror(result)))") }
    }

    /// A close-on-exec pipe: (read end, write end).
    mutating func pipe() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe2(&fds, O_CLOEXEC) == 0 else { throw SpawnFailed(description: "pipe2: \(String(cString: strerror(errno)))") }
        return (fds[0], fds[1])
    }

    mutating func input(_ input: SpawnedProcess.Input) throws -> FileHandle? {
        switch input {
        case .null:
            try Self.check(posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0), "open /dev/null")
        case .file(let path):
            try Self.check(posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, path, O_RDONLY, 0), "open \(path)")
        case .pipe, .bytes:
            let (read, write) = try pipe()
            childEnds.append(read)
            try Self.check(posix_spawn_file_actions_adddup2(&actions, read, STDIN_FILENO), "dup2")
            return FileHandle(fileDescriptor: write, closeOnDealloc: true)
        }
        return nil
    }

    mutating func output(_ output: SpawnedProcess.Output, to fd: Int32) throws -> FileHandle? {
        switch output {
        case .null:
            try Self.check(posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0), "open /dev/null")
        case .file(let path):
            try Self.check(
                posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644), "open \(path)")
        case .standardOutput:
            try Self.check(posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, fd), "dup2")
        case .inherit:
            break
        case .pipe:
            let (read, write) = try pipe()
            childEnds.append(write)
            try Self.check(posix_spawn_file_actions_adddup2(&actions, write, fd), "dup2")
            return FileHandle(fileDescriptor: read, closeOnDealloc: true)
        }
        return nil
    }

    /// The last actions: the working directory, and every other descriptor closed.
    mutating func finish(directory: String?) throws {
        if let directory {
            try Self.check(posix_spawn_file_actions_addchdir_np(&actions, directory), "chdir \(directory)")
        }
        try Self.check(posix_spawn_file_actions_addclosefrom_np(&actions, 3), "closefrom")
    }

    mutating func start(_ executable: String, _ arguments: [String], environment: [String: String]?) throws -> pid_t {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for p in argv { free(p) }
            for p in envp ?? [] { free(p) }
        }
        var pid = pid_t()
        let spawner = executable.contains("/") ? posix_spawn : posix_spawnp
        let result = argv.withUnsafeBufferPointer { a in
            if let envp {
                return envp.withUnsafeBufferPointer { e in
                    spawner(&pid, executable, &actions, &attributes, a.baseAddress!, e.baseAddress!)
                }
            }
            return spawner(&pid, executable, &actions, &attributes, a.baseAddress!, UnsafePointer(rt_environ()!))
        }
        try Self.check(result, "spawn \(executable)")
        return pid
    }

    /// Frees the actions and closes our copies of the child's ends.
    mutating func destroy() {
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
        for fd in childEnds { close(fd) }
        childEnds = []
    }
}

/// `posix_spawn` or a pipe for it failed.
package struct SpawnFailed: Error, CustomStringConvertible {
    package let description: String
}
#endif
