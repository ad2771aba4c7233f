#if os(Linux)
import Foundation
import Glibc
import RealtimeCore
import RealtimeTestServer

/// Runs one suite of this test binary in a child process of its own, for tests that must
/// not share the process with the others running in parallel: the herd (2,000 churning
/// descriptors), the chaos soak and the open/close cycles (their descriptor, thread and memory
/// baselines must be their own: resident memory is process-wide).
public enum ChildTestProcess {
    /// Whether this process is the child started for `variable`; if so and `lowPriority`,
    /// lowers its priority (``lowerPriority()``).
    public static func isChild(_ variable: String, value: String = "1", lowPriority: Bool = true) -> Bool {
        guard ProcessInfo.processInfo.environment[variable] == value else { return false }
        if lowPriority { lowerPriority() }
        return true
    }

    /// Nice 19 (the lowest priority) for the calling thread of this (child) process, and the
    /// threads it starts later: the tests running alongside in the parent have timing bounds of
    /// their own. On Linux a nice value belongs to a thread, so the process's other threads
    /// (its loops, the pools) keep theirs: the whole child at nice 19 beside two busy loops is
    /// starved long enough to miss its own bounded waits (a descriptor closed late).
    public static func lowerPriority() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    }

    /// Runs this binary again with `--filter filter` and `variable=value`; returns its exit
    /// status (−1 when killed at the timeout) and its merged output. Blocking: call it offloaded.
    public static func run(
        filter: String, variable: String, value: String = "1", timeoutSeconds: Int
    ) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = value
        let run = try SpawnedProcess.run(
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path,
            ["--testing-library", "swift-testing", "--filter", filter],
            environment: environment, error: .standardOutput, timeout: .seconds(timeoutSeconds))
        return (run.termination?.status ?? -1, run.outputText)
    }

    /// Runs `filter` in a child (``run(filter:variable:value:timeoutSeconds:)``) off the
    /// cooperative pool and prints the child's report lines (``reportLines(_:prefix:)``) in
    /// this process's log; returns the child's exit status and those lines.
    public static func relay(
        filter: String, variable: String, value: String = "1", timeoutSeconds: Int, prefix: String
    ) async throws -> (status: Int32, lines: [String]) {
        let (status, output) = try await offloaded {
            try run(filter: filter, variable: variable, value: value, timeoutSeconds: timeoutSeconds)
        }
        let lines = reportLines(output, prefix: prefix)
        lines.forEach { print($0) }
        return (status, lines)
    }

    /// The lines of `output` worth repeating in the parent's log: the test's own report
    /// (lines starting with `prefix`), skips and failures.
    public static func reportLines(_ output: String, prefix: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix(prefix) || $0.contains("SKIPPED") || $0.contains("✘")
                || ($0.contains("↳") && !$0.contains("Testing Library Version") && !$0.contains("Target Platform"))
        }
    }
}
#endif
