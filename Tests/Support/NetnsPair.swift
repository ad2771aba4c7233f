#if os(Linux)
import Foundation
import Glibc
import RealtimeCore
import RealtimeTestServer

/// Two network namespaces joined by a veth pair (scripts/netns/up.sh), for tests that need
/// real links to fail. ``make(tag:)`` returns nil — after printing why — when the machine
/// cannot create namespaces (not root, no `ip`, no netns support), so those tests skip
/// visibly instead of silently. Creating and deleting run the scripts on a thread of their
/// own (``destroy()`` blocks; prefer ``destroyed()`` from async code): a busy machine makes
/// `ip` slow, and the cooperative pool (2 threads here) must not wait for it.
public struct NetnsPair: Sendable {
    public let tag: String
    public var client: String { "rt-\(tag)-c" }
    public var server: String { "rt-\(tag)-s" }
    public var clientVeth: String { "rt\(tag)c" }
    public var serverVeth: String { "rt\(tag)s" }
    public static let clientAddress = "10.250.0.1"
    public static let serverAddress = "10.250.0.2"

    public static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/netns")

    public static func make(tag: String) async -> NetnsPair? {
        let tag = tag + String(getpid() % 10000)
        guard geteuid() == 0 else {
            print("SKIPPED (network namespaces): needs root; run `make test` as root (CI does)")
            return nil
        }
        let pair = NetnsPair(tag: tag)
        do {
            try await offloaded { try run(scripts.appendingPathComponent("up.sh").path, [tag]) }
        } catch {
            await pair.destroyed()
            print("SKIPPED (network namespaces): cannot create them here: \(error)")
            return nil
        }
        return pair
    }

    public func destroy() {
        try? Self.run(Self.scripts.appendingPathComponent("down.sh").path, [tag])
    }

    /// ``destroy()`` on a thread of its own.
    public func destroyed() async {
        _ = try? await offloaded { self.destroy() }
    }

    /// Ends a process from ``spawnReady(in:_:timeout:)`` and waits until it is reaped.
    package static func kill(_ p: SpawnedProcess) {
        p.kill(SIGKILL)
        p.waitUntilExit()
    }

    /// ``kill(_:)`` for several processes, reaped on a thread of their own.
    package static func killed(_ processes: [SpawnedProcess]) async {
        _ = try? await offloaded { for p in processes { kill(p) } }
    }

    /// A background server inside `namespace` (`ip netns exec`) that prints `ready` on its
    /// standard output once it listens (scripts/netns/*_server.py): returns only then, so a
    /// test can time what follows from the moment the server is really there. Waits on a
    /// thread of its own, at most `timeout`; the process is killed if it does not get ready,
    /// and the error carries the end of its standard error. End it with ``kill(_:)`` or
    /// ``killed(_:)``.
    ///
    /// `normalPriority` starts it at nice 0 whatever this process's priority (a test in a
    /// child process at nice 19 must not hand that to its server, which could then miss the
    /// deadline on a machine busy with the parent's tests).
    package func spawnReady(
        in namespace: String, _ args: [String], timeout: Duration = .seconds(10), normalPriority: Bool = false
    ) async throws -> SpawnedProcess {
        let ip = ["/usr/sbin/ip", "netns", "exec", namespace] + args
        let nice = -getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let command = normalPriority && nice != 0 ? ["/usr/bin/nice", "-n", "\(nice)"] + ip : ip
        let p = try SpawnedProcess(command[0], Array(command.dropFirst()), output: .pipe, error: .pipe)
        let errors = Self.collectTail(p.standardError)
        let ready = try await offloaded { Self.waitForReady(p.standardOutput!, timeout: timeout) }
        try? p.standardOutput?.close()
        guard ready else {
            await Self.killed([p])
            throw CommandFailed(description: "\(args.joined(separator: " ")) did not get ready within \(timeout) "
                + "(\(p.termination.map { "\($0)" } ?? "running")): \(errors.withLock { String(decoding: $0, as: UTF8.self) })")
        }
        return p
    }

    /// The last 2,000 bytes read from `handle` until its end, on a thread of its own.
    private static func collectTail(_ handle: FileHandle?) -> LockedValue<[UInt8]> {
        let tail = LockedValue<[UInt8]>([])
        guard let fd = handle?.fileDescriptor else { return tail }
        Thread {
            SpawnedProcess.forEachChunk(fd) { chunk in tail.withLock { $0 = Array(($0 + chunk).suffix(2000)) } }
            withExtendedLifetime(handle) {}
        }.start()
        return tail
    }

    /// Reads `handle` until a `ready` line, its end, or `timeout`.
    private static func waitForReady(_ handle: FileHandle, timeout: Duration) -> Bool {
        let fd = handle.fileDescriptor
        let deadline = ContinuousClock.now + timeout
        var seen: [UInt8] = []
        while ContinuousClock.now < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = (deadline - ContinuousClock.now).components
            let ms = Int32(clamping: max(1, left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000))
            guard poll(&pfd, 1, ms) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            seen += buffer[0..<n]
            if String(decoding: seen, as: UTF8.self).contains("ready\n") { return true }
        }
        return false
    }

    /// `ip -n <namespace> args…`, on a thread of its own.
    public func ip(_ namespace: String, _ args: String...) async throws {
        try await offloaded { try Self.run("/usr/sbin/ip", ["-n", namespace] + args) }
    }

    /// `ip netns exec <namespace> args…` (e.g. `iptables`, `tc`), on a thread of its own.
    public func exec(in namespace: String, _ args: [String]) async throws {
        try await offloaded { try Self.run("/usr/sbin/ip", ["netns", "exec", namespace] + args) }
    }

    public struct CommandFailed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs a command to completion (bounded: these are one-shot `ip` calls).
    public static func run(_ path: String, _ args: [String]) throws {
        let run = try SpawnedProcess.run(path, args, timeout: .seconds(120))
        guard run.termination == .exited(0) else {
            let end = run.termination.map { "\($0)" } ?? "timed out"
            throw CommandFailed(description: "\(path) \(args.joined(separator: " ")) \(end): \(run.errorText)")
        }
    }
}
#endif
