import CLinux
import Foundation
import Realtime

/// What the `scale` suite reads about this process: resident memory, threads, CPU time, the
/// I/O loop's counters, and the descriptor limit.
enum ProcessProbe {
    /// Resident set size in bytes (`/proc/self/statm`).
    static func residentBytes() -> Int { SSETransportBenchmarks.residentBytes() }

    /// User + system CPU seconds of every thread of this process.
    static func cpuSeconds() -> Double { SSETransportBenchmarks.processCPUSeconds() }

    /// CPU seconds of the I/O loop thread (`realtime-io`).
    static func loopCPUSeconds() -> Double { SSETransportBenchmarks.threadCPUSeconds(named: "realtime-io") }

    /// Live threads, and how many of them are called `name`.
    static func threads(named name: String) -> (total: Int, named: Int) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var named = 0
        for task in tasks {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            if comm.trimmingCharacters(in: .whitespacesAndNewlines) == name { named += 1 }
        }
        return (tasks.count, named)
    }

    /// The 1-minute load average (the machine is shared: quoted next to timings).
    static func loadAverage() -> Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.flatMap { Double($0) } ?? 0
    }

    /// The shared loop's counters, read on its thread.
    static func loopStatistics() -> EventLoop.Statistics { onLoop { EventLoop.shared.statistics } }

    /// How many descriptors the shared loop watches, read on its thread.
    static func loopRegistrations() -> Int { onLoop { EventLoop.shared.registrationCount } }

    /// `read` run on the shared loop's thread, waited for.
    private static func onLoop<T: Sendable>(_ read: @escaping @Sendable () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = LockedValue<T?>(nil)
        EventLoop.shared.execute {
            let value = read()
            box.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }

    /// Bytes the heap has handed out and not taken back (glibc's `mallinfo2`, every arena):
    /// memory in use, without the pages that fragmentation or untouched allocations make RSS
    /// differ by.
    static func heapInUseBytes() -> Int { Int(rt_heap_in_use()) }

    /// Raises the soft limit on open descriptors to the hard limit; returns the new soft limit.
    @discardableResult
    static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(limit.rlim_cur)
    }

    /// Returns free heap pages to the kernel (`malloc_trim(0)`), to tell fragmentation from
    /// memory still in use.
    static func trimHeap() {
        _ = rt_malloc_trim()
    }
}
