#if os(Linux)
import Foundation
import Glibc

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

    /// Ends a process from ``spawnReady(in:_:timeout:)`` and reaps it. SIGKILL, because a child spawned
    /// from a test thread inherits that thread's signal mask, in which SIGTERM may be blocked.
    public static func kill(_ p: Process) {
        if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// ``kill(_:)`` for several processes, reaped on a thread of their own.
    public static func killed(_ processes: [Process]) async {
        let boxed = UncheckedProcesses(processes: processes)
        _ = try? await offloaded { for p in boxed.processes { kill(p) } }
    }

    /// Hands processes to the reaping thread; nothing else touches them meanwhile.
    private struct UncheckedProcesses: @unchecked Sendable {
        var processes: [Process]
    }

    /// A background server inside `namespace` (`ip netns exec`) that prints `ready` on its
    /// standard output once it listens (scripts/netns/*_server.py): returns only then, so a
    /// test can time what follows from the moment the server is really there. Waits on a
    /// thread of its own, at most `timeout`; the process is killed if it does not get ready.
    /// End it with ``kill(_:)`` or ``killed(_:)``.
    public func spawnReady(in namespace: String, _ args: [String], timeout: Duration = .seconds(10)) async throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["netns", "exec", namespace] + args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let fd = out.fileHandleForReading.fileDescriptor
        let ready = try await offloaded { () -> Bool in
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
        try? out.fileHandleForReading.close()
        guard ready else {
            Self.kill(p)
            throw CommandFailed(description: "\(args.joined(separator: " ")) did not get ready within \(timeout)")
        }
        return p
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

    /// Everything until end of file, retrying reads that a signal interrupted.
    static func readToEnd(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 {
                bytes += buffer[0..<n]
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return bytes
            }
        }
    }

    /// Runs a command to completion (bounded: these are one-shot `ip` calls).
    public static func run(_ path: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        // Not FileHandle.readDataToEndOfFile(): it traps when a signal (SIGCHLD from another
        // test's child) interrupts the read; read(2) is simply retried after EINTR.
        let message = String(decoding: readToEnd(err.fileHandleForReading.fileDescriptor), as: UTF8.self)
        guard p.terminationStatus == 0 else {
            throw CommandFailed(description: "\(path) \(args.joined(separator: " ")) exited \(p.terminationStatus): \(message)")
        }
    }
}
#endif
