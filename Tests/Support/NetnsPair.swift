#if os(Linux)
import Foundation
import Glibc

/// Two network namespaces joined by a veth pair (scripts/netns/up.sh), for tests that need
/// real links to fail. ``make(tag:)`` returns nil — after printing why — when the machine
/// cannot create namespaces (not root, no `ip`, no netns support), so those tests skip
/// visibly instead of silently.
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

    public static func make(tag: String) -> NetnsPair? {
        let tag = tag + String(getpid() % 10000)
        guard geteuid() == 0 else {
            print("SKIPPED (network namespaces): needs root; run `make test` as root (CI does)")
            return nil
        }
        let pair = NetnsPair(tag: tag)
        do {
            try run(scripts.appendingPathComponent("up.sh").path, [tag])
        } catch {
            pair.destroy()
            print("SKIPPED (network namespaces): cannot create them here: \(error)")
            return nil
        }
        return pair
    }

    public func destroy() {
        try? Self.run(Self.scripts.appendingPathComponent("down.sh").path, [tag])
    }

    /// Ends a process from ``spawn(in:_:)`` and reaps it. SIGKILL, because a child spawned
    /// from a test thread inherits that thread's signal mask, in which SIGTERM may be blocked.
    public static func kill(_ p: Process) {
        if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// A background process inside `namespace` (`ip netns exec`); end it with ``kill(_:)``.
    public func spawn(in namespace: String, _ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["netns", "exec", namespace] + args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// `ip -n <namespace> args…`
    public func ip(_ namespace: String, _ args: String...) throws {
        try Self.run("/usr/sbin/ip", ["-n", namespace] + args)
    }

    public struct CommandFailed: Error, CustomStringConvertible {
        public var description: String
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
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard p.terminationStatus == 0 else {
            throw CommandFailed(description: "\(path) \(args.joined(separator: " ")) exited \(p.terminationStatus): \(message)")
        }
    }
}
#endif
