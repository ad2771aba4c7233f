#if os(Linux)
import Foundation
import Glibc
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// The child-process helper the tests rely on must never take the test process down with it.
@Suite(.timeLimit(.minutes(1))) struct SpawnedProcessTests {
    /// A child that exits without reading its input: the bytes still to write (far more than
    /// a pipe holds) meet a closed pipe. The write fails with EPIPE instead of raising
    /// SIGPIPE, whose default action would end this whole test process.
    @Test func inputToAChildThatExitsUnreadIsDropped() async throws {
        let input = [UInt8](repeating: 0x61, count: 4 << 20)
        let run = try await offloaded {
            try SpawnedProcess.run("/bin/true", input: .bytes(input), timeout: .seconds(20))
        }
        #expect(run.termination?.status == 0)
        // The same through the helper the interactive tests write with.
        let p = try SpawnedProcess("/bin/true", [], input: .pipe, output: .null, error: .null)
        #expect(await p.exit(within: .seconds(20))?.status == 0)
        let fd = try #require(p.standardInput?.fileDescriptor)
        let written = input.withUnsafeBytes { SpawnedProcess.writeAll($0, to: fd) }
        #expect(!written, "the child's end is closed")
    }
}
#endif
