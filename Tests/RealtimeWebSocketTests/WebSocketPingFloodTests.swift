import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Testing
import RealtimeCore
import RealtimeTestServer
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// A hostile peer that floods pings and never reads: the client must not queue a pong per
/// ping (RFC 6455 §5.5.3 lets it answer only the most recent one), its memory must stay
/// flat, and the connection must fail with `peer_not_reading`.
@Suite(.timeLimit(.minutes(1))) struct WebSocketPingFloodTests {
    /// Writes 125-byte pings as fast as the client takes them, for at most `seconds`, and
    /// never reads (its receive buffer is kept small so the client's writes stall early).
    static func flood(_ fd: Int32, seconds: Double) {
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var frames: [UInt8] = []
        for _ in 0..<512 { frames += [0x89, 125] + [UInt8](repeating: 0x41, count: 125) }
        let deadline = Date().addingTimeInterval(seconds)
        var offset = 0 // a send may stop mid-frame: the next one goes on from there
        while Date() < deadline {
            let n = frames.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK { break } // the client is gone
            if n > 0 { offset = (offset + n) % frames.count }
        }
        ScriptedServer.reset(fd)
    }

    /// The client runs as its own process (`rtcat`), so its peak RSS is its own and not the
    /// rest of the test run's.
    @Test func pingFloodFromAPeerThatNeverReads() async throws {
        let server = try ScriptedServer { fd in Self.flood(fd, seconds: 12) }
        let rtcat = try #require(BuiltExecutable.url(named: "rtcat"), "rtcat binary not found; run `swift build` first")
        let run = try await offloaded { try ChildRun.run(rtcat, ["--no-reconnect", server.url.absoluteString], timeout: 20) }
        // Measured on loopback: with a pong queued per ping the client grew by ~25 MiB/s
        // (+196 MiB over an 8 s flood, debug build) and never failed; now the error arrives
        // within about a second and the process stays near its start-up size.
        let failure = run.stdout.split(separator: "\n").first { $0.contains("peer_not_reading") } ?? "none"
        print("Ping flood: rtcat ended after \(Int(run.seconds * 1000)) ms, peak RSS \(run.peakResidentBytes >> 20) MiB; \(failure)")
        #expect(run.stdout.contains("\"open\""), "\(run.stdout)")
        #expect(run.stdout.contains("peer_not_reading"), "\(run.stdout)")
        #expect(run.seconds < 10, "the error arrives while the peer still floods (took \(run.seconds) s)")
        #expect(run.peakResidentBytes < 64 << 20, "memory stays flat (peak RSS \(run.peakResidentBytes >> 20) MiB)")
    }
}

/// A child process run to completion, with its peak resident set size (`VmHWM`, sampled
/// from /proc while it runs: the peak so far, so the last sample is the peak; not the
/// kernel's `ru_maxrss`, which for a spawned child includes its parent's memory from
/// before the exec).
struct ChildRun {
    var stdout: String
    var seconds: Double
    var peakResidentBytes: Int

    static func run(_ executable: URL, _ arguments: [String], timeout: Double) throws -> ChildRun {
        let start = ContinuousClock.now
        let process = try SpawnedProcess(executable.path, arguments, output: .pipe)
        let collected = LockedValue<[UInt8]>([])
        let read = DispatchSemaphore(value: 0)
        Thread {
            collected.withLock { $0 = SpawnedProcess.readToEnd(process.standardOutput) }
            read.signal()
        }.start()
        let peak = Atomic<Int>(0)
        let sampled = DispatchSemaphore(value: 0)
        _ = WallTime.sample(every: .milliseconds(20)) {
            peak.store(max(peak.load(ordering: .relaxed), residentHighWater(process.processIdentifier)), ordering: .relaxed)
            let goOn = process.isRunning && ContinuousClock.now - start < .milliseconds(Int(timeout * 1000))
            if !goOn { sampled.signal() }
            return goOn
        }
        sampled.wait()
        process.kill(SIGKILL)
        process.waitUntilExit()
        let elapsed = (ContinuousClock.now - start).components
        read.wait()  // at once: the child is gone, so its output has ended
        return ChildRun(
            stdout: String(decoding: collected.withLock { $0 }, as: UTF8.self),
            seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18,
            peakResidentBytes: peak.load(ordering: .relaxed))
    }

    /// `VmHWM` of `pid` in bytes (0 once it is gone).
    static func residentHighWater(_ pid: pid_t) -> Int {
        guard let text = ProcessResources.procText("/proc/\(pid)/status") else { return 0 }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kib << 10
    }
}
