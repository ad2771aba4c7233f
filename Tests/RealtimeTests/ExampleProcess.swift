import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// An executable of the package (an example program) run as a child process that a test talks
/// to while it runs: lines written to its standard input, its standard output collected by a
/// thread of its own, signals, and a bounded wait for its exit (killed after it).
final class ExampleProcess: Sendable {
    private let process: SpawnedProcess
    private let output = LockedValue<[UInt8]>([])
    private let errorOutput = LockedValue<[UInt8]>([])

    init(_ executable: String, _ arguments: [String]) throws {
        guard let url = BuiltExecutable.url(named: executable) else {
            throw RealtimeError(.invalidConfiguration, detail: "\(executable) is not built; run swift build --build-tests")
        }
        process = try SpawnedProcess(url.path, arguments, input: .pipe, output: .pipe, error: .pipe)
        Self.collect(process.standardOutput, into: output)
        Self.collect(process.standardError, into: errorOutput)
    }

    /// Reads `reader` until its end on a thread of its own.
    private static func collect(_ reader: FileHandle?, into buffer: LockedValue<[UInt8]>) {
        guard let fd = reader?.fileDescriptor else { return }
        Thread {
            SpawnedProcess.forEachChunk(fd) { chunk in buffer.withLock { $0 += chunk } }
            withExtendedLifetime(reader) {}
        }.start()
    }

    /// Standard output so far, as lines.
    var lines: [String] {
        String(decoding: output.withLock { $0 }, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The child's threads and descriptors, for a failing test's message.
    var diagnostics: String {
        let pid = process.processIdentifier
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let states = tasks.map { t in
            let wchan = (try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/wchan", encoding: .utf8)) ?? "?"
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/stat", encoding: .utf8)) ?? "?"
            return "\(stat.split(separator: " ").prefix(3).joined(separator: " ")) \(wchan)"
        }
        let fds = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).map { fd in
            "\(fd)->\((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? "?")"
        }
        return "pid \(pid) \(process.termination.map { "\($0)" } ?? "running"); threads \(states); fds \(fds)"
    }

    /// The child's peak resident set size so far (`VmHWM` in /proc/PID/status), in bytes;
    /// nil once it has exited.
    var peakResidentBytes: Int? {
        let status = ProcessResources.procText("/proc/\(process.processIdentifier)/status") ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kib = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kib * 1024
    }

    /// Standard error so far.
    var errorText: String {
        String(decoding: errorOutput.withLock { $0 }, as: UTF8.self)
    }

    /// Writes to the example's standard input; nothing happens once it has exited (no SIGPIPE).
    func write(_ text: String) {
        guard let fd = process.standardInput?.fileDescriptor else { return }
        Array(text.utf8).withUnsafeBytes { _ = SpawnedProcess.writeAll($0, to: fd) }
    }

    func closeInput() {
        try? process.standardInput?.close()
    }

    func signal(_ signal: Int32) {
        process.kill(signal)
    }

    /// Waits until a line satisfies `condition` (at most `seconds`).
    func waitForLine(_ what: String, seconds: Int = 20, _ condition: @escaping @Sendable (String) -> Bool) async throws {
        try await bounded("\(what) (output so far: \(lines.suffix(8)); standard error: \(errorText.suffix(600)); \(diagnostics))", seconds: seconds) {
            self.lines.contains(where: condition)
        }
    }

    /// The exit status, once the process ended (killed after `seconds`: nil).
    func exitStatus(within seconds: Int = 20) async -> Int32? {
        await process.exitOrKill(within: .seconds(seconds))?.status
    }
}
