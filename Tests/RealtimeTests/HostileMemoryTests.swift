#if os(Linux)
import Foundation
import Glibc
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// Floods and bombs: a server that sends far more than any limit allows, plain or
/// compressed. The user sees a typed `limit` error that is not retried (the same data would
/// come back), and the client's memory stays bounded: its peak resident set size (`VmHWM`,
/// reset before each case) grows by a small multiple of the limit, not by what the server
/// sends (100 MB to 1 GiB).
///
/// The cases run in a child test process of their own, one after the other, so that each
/// peak is this client's alone and not the other suites' running in parallel.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct HostileMemoryTests {
    static let childVariable = "RT_HOSTILE_MEMORY_CHILD"
    /// What a case may add to the peak: the 16 MiB event / message limit, the copies made
    /// on the way (the parser's line, the arena, the decoded event; the inflater's output and
    /// the assembled message), and the loopback socket buffers.
    static let growthBound = 64 << 20

    enum Case: String, CaseIterable, Sendable {
        case sseEndlessLine, sse100MBEvent, sseGzipBomb, webSocketEndlessMessage, webSocketDeflateBomb

        var expected: RealtimeError.Code {
            switch self {
            case .sseEndlessLine, .sseGzipBomb: .lineTooLong
            case .sse100MBEvent: .eventTooLarge
            case .webSocketEndlessMessage, .webSocketDeflateBomb: .messageTooLarge
            }
        }
    }

    @Test("floods and bombs end with a limit error, not retried, in bounded memory (own process)")
    func floodsAndBombs() async throws {
        if ChildTestProcess.isChild(Self.childVariable, lowPriority: false) {
            try await runCases()
            return
        }
        let (status, lines) = try await ChildTestProcess.relay(
            filter: "HostileMemoryTests", variable: Self.childVariable, timeoutSeconds: 150, prefix: "Hostile memory")
        #expect(status == 0, "the child process failed (exit \(status))")
        #expect(lines.filter { $0.hasPrefix("Hostile memory:") }.count == Case.allCases.count)
    }

    private func runCases() async throws {
        let server = TestServer()
        Self.install(on: server)
        try server.start()
        defer { server.stop() }
        #expect(ProcessResources.resetPeakResidentBytes(), "/proc/self/clear_refs refused")
        for hostile in Case.allCases {
            try await run(hostile, server)
        }
    }

    private func run(_ hostile: Case, _ server: TestServer) async throws {
        let url: URL =
            switch hostile {
            case .sseEndlessLine: server.url("/sse?endless=1")
            case .sse100MBEvent: server.url("/big-event")
            case .sseGzipBomb: server.url("/gzip-bomb")
            case .webSocketEndlessMessage: server.wsURL("/ws-flood")
            case .webSocketDeflateBomb: server.wsURL("/ws-bomb")
            }
        let wroteBefore = server.statistics.bytesWritten
        // Give the previous case's freed memory back to the system, so that this case's
        // peak is not hidden by reusing it.
        Self.trimHeap()
        ProcessResources.resetPeakResidentBytes()
        let before = ProcessResources.residentBytes
        let run = try await HostileRun.client(url, password: false, within: .seconds(30), until: { $0.contains { $0.errorEvent != nil } }) {
            $0.webSocket.heartbeat = .disabled
            $0.webSocket.closeTimeout = .seconds(1)
        }
        let growth = ProcessResources.peakResidentBytes - before
        let wrote = server.statistics.bytesWritten - wroteBefore
        let error = run.errors.first
        let at = run.firstErrorAt.map { "\(Int($0 / .milliseconds(1))) ms" } ?? "never"
        print("Hostile memory: \(hostile.rawValue): \(error.map { "\($0.error.code), willRetry \($0.willRetry)" } ?? "no error") at \(at) (ended at \(Int(run.elapsed / .milliseconds(1))) ms); peak RSS +\(growth >> 20) MiB; the server wrote \(wrote >> 10) KiB")
        #expect(error?.error.code == hostile.expected, "\(hostile): \(run.summary)")
        #expect(error?.willRetry == false, "\(hostile): the same data would come back")
        #expect(run.messages.isEmpty)
        #expect(growth < Self.growthBound, "\(hostile): peak RSS grew by \(growth >> 20) MiB")
        if hostile == .webSocketEndlessMessage {
            // A client that stops reading once it failed (RFC 6455 §7.1.7, §7.1.1) lets the
            // server write the limit plus what the socket buffers hold, a few MiB; one that
            // drained until the close timeout read gigabytes (1.5 GB in the 1 s set here).
            #expect(wrote < 48 << 20, "the server wrote \(wrote >> 20) MiB after a 16 MiB limit")
        }
        run.expectNoSecret()
    }

    /// glibc's `malloc_trim(0)` (not in Swift's Glibc module): returns free heap pages.
    static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    // MARK: The hostile endpoints

    static func install(on server: TestServer) {
        let mebibyte = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        // 100 data lines of 1 MiB each and never a blank line: one 100 MB event.
        server.setHandler(path: "/big-event") { writer in
            try writer.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            for _ in 0..<100 { try writer.write(Array("data: ".utf8) + mebibyte + [10]) }
        }
        // One line of 1 GiB, gzip-compressed about 1000:1 (1 MiB on the wire).
        server.setHandler(path: "/gzip-bomb") { writer in
            try writer.writeHead(
                status: 200, headers: ["Content-Type": "text/event-stream", "Content-Encoding": "gzip"], framing: .chunked)
            writer.contentEncoder = ContentEncoder(name: "gzip")
            try writer.write("data: ")
            for _ in 0..<1024 { try writer.write(mebibyte) }
        }
        // One binary message of 1 GiB in 1 MiB fragments, never finished.
        server.setHandler(path: "/ws-flood") { writer in
            try writer.acceptWebSocket()
            try writer.writeFrame(WebSocketFrameHeader(fin: false, opcode: .binary, payloadLength: 0), zeros)
            while true { try writer.writeFrame(WebSocketFrameHeader(fin: false, opcode: .continuation, payloadLength: 0), zeros) }
        }
        // permessage-deflate: one message that inflates to 1 GiB of zeros, each 1 MiB of it
        // about 1 KiB on the wire.
        server.setHandler(path: "/ws-bomb") { writer in
            try writer.acceptWebSocket(extraHeaders: "Sec-WebSocket-Extensions: permessage-deflate\r\n")
            guard let deflater = ContentEncoder.permessageDeflate() else { return }
            try writer.writeFrame(WebSocketFrameHeader(fin: false, rsv1: true, opcode: .binary, payloadLength: 0), deflater.encode(zeros))
            while true {
                try writer.writeFrame(WebSocketFrameHeader(fin: false, opcode: .continuation, payloadLength: 0), deflater.encode(zeros))
            }
        }
    }
}
#endif
