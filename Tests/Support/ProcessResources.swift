#if os(Linux)
import Foundation
import Glibc
import RealtimeTestServer

/// What this process holds right now, from /proc: for leak checks after a long run.
public enum ProcessResources {
    /// Open file descriptors (entries of /proc/self/fd, less the one used to list them).
    public static var openDescriptors: Int { entries("/proc/self/fd") - 1 }

    /// Arms and waits out one Dispatch timer on each of its clocks (uptime, wall, and the
    /// monotonic one that `ContinuousClock` sleeps use). Dispatch opens a timer descriptor per
    /// clock the first time a timer on it is armed and keeps it for the process's life; a
    /// leak check calls this before taking its baseline, so that a clock first used during
    /// the measured run (by Swift Testing, Foundation or the test itself) does not count as a
    /// leak.
    public static func openDispatchTimerDescriptors() async throws {
        try await Task.sleep(for: .milliseconds(1))
        try await Task.sleep(until: .now + .milliseconds(1), clock: .suspending)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) {
                DispatchQueue.global().asyncAfter(wallDeadline: .now() + .milliseconds(1)) { done.resume() }
            }
        }
    }

    /// Threads (entries of /proc/self/task).
    public static var threads: Int { entries("/proc/self/task") }

    /// The name (`comm`, at most 15 bytes) of every thread of this process.
    public static var threadNames: [String] {
        names("/proc/self/task").compactMap { tid in
            procText("/proc/self/task/\(tid)/comm").map { $0.trimmingCharacters(in: .newlines) }
        }
    }

    /// The whole text of a `/proc` file (which reports a size of 0, so it is read to its end),
    /// with reads that a signal interrupts retried; nil when it cannot be opened.
    public static func procText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        SpawnedProcess.forEachChunk(fd) { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Resident set size in bytes (`/proc/self/statm`, second field × page size); −1 if unreadable.
    public static var residentBytes: Int {
        guard let text = procText("/proc/self/statm") else { return -1 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Each open descriptor and what it refers to (`readlink` of /proc/self/fd/N: a path,
    /// `socket:[inode]`, `anon_inode:[eventfd]`, …), to name what a leak check found.
    public static var descriptorTable: [Int32: String] {
        var table: [Int32: String] = [:]
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return table }
        for name in names {
            guard let fd = Int32(name) else { continue }
            var buffer = [CChar](repeating: 0, count: 256)
            let n = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
            if n > 0 { table[fd] = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
        return table
    }

    private static func entries(_ path: String) -> Int {
        guard opendir(path).map({ closedir($0) }) != nil else { return -1 }
        return names(path).count
    }

    private static func names(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
#endif
