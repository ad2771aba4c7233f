#if os(Linux)
import Foundation
import Glibc

/// Two network namespaces joined by a veth pair (scripts/netns/up.sh), for tests that need
/// real links to fail. ``make(tag:)`` returns nil — after printing why — when the machine
/// cannot create namespaces (not root, no `ip`, no netns support), so those tests skip
/// visibly instead of silently.
struct NetnsPair: Sendable {
    let tag: String
    var client: String { "rt-\(tag)-c" }
    var server: String { "rt-\(tag)-s" }
    var clientVeth: String { "rt\(tag)c" }
    var serverVeth: String { "rt\(tag)s" }
    static let clientAddress = "10.250.0.1"
    static let serverAddress = "10.250.0.2"

    static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/netns")

    static func make(tag: String) -> NetnsPair? {
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

    func destroy() {
        try? Self.run(Self.scripts.appendingPathComponent("down.sh").path, [tag])
    }

    /// `ip -n <namespace> args…`
    func ip(_ namespace: String, _ args: String...) throws {
        try Self.run("/usr/sbin/ip", ["-n", namespace] + args)
    }

    struct CommandFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs a command to completion (bounded: these are one-shot `ip` calls).
    static func run(_ path: String, _ args: [String]) throws {
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
