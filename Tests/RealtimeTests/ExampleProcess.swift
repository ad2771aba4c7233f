import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// An executable of the package (an example program) run as a child process that a test talks
/// to while it runs: lines written to its standard input, its standard output collected by a
/// thread of its own, signals, and a bounded wait for its exit (killed after it).
final class ExampleProcess: Sendable {
    private let process: Process
    private let input: FileHandle
    private let output = LockedValue<[UInt8]>([])
    private let errorOutput = LockedValue<[UInt8]>([])

    init(_ executable: String, _ arguments: [String]) throws {
        guard let url = BuiltExecutable.url(named: executable) else {
            throw RealtimeError(.invalidConfiguration, detail: "\(executable) is not built; run swift build --build-tests")
        }
        let p = Process()
        p.executableURL = url
        p.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = stderr
        try p.run()
        process = p
        input = stdin.fileHandleForWriting
        Self.collect(stdout.fileHandleForReading, into: output)
        Self.collect(stderr.fileHandleForReading, into: errorOutput)
    }

    /// Reads `reader` until its end on a thread of its own.
    private static func collect(_ reader: FileHandle, into buffer: LockedValue<[UInt8]>) {
        Thread {
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                buffer.withLock { $0 += Array(chunk) }
            }
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
        return "pid \(pid) running \(process.isRunning); threads \(states); fds \(fds)"
    }

    /// Standard error so far.
    var errorText: String {
        String(decoding: errorOutput.withLock { $0 }, as: UTF8.self)
    }

    func write(_ text: String) {
        try? input.write(contentsOf: Data(text.utf8))
    }

    func closeInput() {
        try? input.close()
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits until a line satisfies `condition` (at most `seconds`).
    func waitForLine(_ what: String, seconds: Int = 20, _ condition: @escaping @Sendable (String) -> Bool) async throws {
        try await bounded("\(what) (output so far: \(lines.suffix(8)); standard error: \(errorText.suffix(600)); \(diagnostics))", seconds: seconds) {
            self.lines.contains(where: condition)
        }
    }

    /// The exit status, once the process ended (killed after `seconds`: nil).
    func exitStatus(within seconds: Int = 20) async -> Int32? {
        guard await eventually("the process to exit", within: .seconds(seconds), { !self.process.isRunning }) else {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
