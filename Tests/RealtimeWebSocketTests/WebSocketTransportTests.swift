import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import RealtimeIO
@_spi(Transport) @testable import RealtimeWebSocket

/// Transport behaviour that needs a kernel or a peer: the epoll loop's timer heap, SIGPIPE,
/// refused connections and DNS, send ordering from many tasks. The timeouts and the phases of
/// an attempt run on the embedded loop (`WebSocketEmbeddedTimerTests`,
/// `WebSocketEmbeddedLifecycleTests`).
@Suite(.timeLimit(.minutes(1))) struct WebSocketTransportTests {
    /// A transport released during its closing handshake (an application that closed and
    /// let go) takes its timers with it: the close timer does not stay in the loop's heap,
    /// waking it once it falls due, long after the connection is gone.
    @Test func releasedWhileClosingLeavesNoTimerBehind() async throws {
        let server = try ScriptedServer { fd in ScriptedServer.ignore(fd, seconds: 20) }
        let loop = EventLoop(name: "t-ws-release")
        defer { loop.shutdown() }
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.closeTimeout = .seconds(30)
            var transport: WebSocketTransport? = WebSocketTransport(
                request: TransportRequest(url: server.url), options: options, eventLoop: loop)
            let events = transport!.eventStream()
            for await event in events { if case .opened = event { break } }
            transport!.close()
            #expect(await loop.submit { loop.pendingTimerCount } == 1, "the close timer bounds the handshake")
            transport = nil
            // Whatever the release queued on the loop runs before a task queued after it.
            await loop.submit {}
            #expect(await loop.submit { loop.pendingTimerCount } == 0, "no timer left once the connection is gone")
        }
    }

    @Test func peerVanishingWhileWeWriteIsAnErrorNotSIGPIPE() async throws {
        let server = try ScriptedServer { fd in
            // Wait until the client is writing, then vanish with RST.
            var byte: UInt8 = 0
            _ = read(fd, &byte, 1)
            ScriptedServer.reset(fd)
        }
        try await withDeadline {
            let probe = TransportProbe(server.url)
            #expect(await probe.opened() != nil)
            let chunk = [UInt8](repeating: 7, count: 256 * 1024)
            var failures = 0
            for _ in 0..<40 {
                do { try await probe.transport.send(.binary(chunk), flush: true) } catch { failures += 1 }
            }
            // The process is still alive (no SIGPIPE) and the sends report the failure.
            #expect(failures > 0)
            let (end, _) = await probe.ended()
            #expect(end?.clean == false)
            #expect(end?.error != nil)
        }
    }

    @Test func connectionRefusedIsANetworkError() async throws {
        let closed = try ClosedPort()
        try await withDeadline {
            let probe = TransportProbe(URL(string: "ws://127.0.0.1:\(closed.port)/")!)
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .network)
            #expect(end?.requestWasDelivered == false)
        }
    }

    @Test func unresolvableHostIsADNSFailure() async throws {
        try await withDeadline {
            let probe = TransportProbe(URL(string: "ws://no-such-host.invalid/")!)
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .dnsFailure)
        }
    }

    @Test func sendsFromManyTasksKeepPerTaskOrderAndAllArrive() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline(30) {
            var options = TransportProbe.quietOptions
            options.outboundQueueCapacity = 4 // force senders to wait for room
            let probe = TransportProbe(peer.url("/echo"), options: options)
            #expect(await probe.opened() != nil)
            let transport = probe.transport
            let tasks = 8, perTask = 50
            try await withThrowingTaskGroup(of: Void.self) { group in
                for t in 0..<tasks {
                    group.addTask {
                        for i in 0..<perTask { try await transport.send(.text("\(t):\(i)")) }
                    }
                }
                try await group.waitForAll()
            }
            var next = [Int](repeating: 0, count: tasks)
            for _ in 0..<(tasks * perTask) {
                let text = try #require(await probe.message()?.text)
                let parts = text.split(separator: ":").compactMap { Int($0) }
                #expect(parts[1] == next[parts[0]], "task \(parts[0]) out of order")
                next[parts[0]] += 1
            }
            #expect(next == [Int](repeating: perTask, count: tasks))
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test func sequentialSendsAreOrdered() async throws {
        let peer = try await PythonPeer.start(script: "ws_aiohttp.py")
        try await withDeadline(30) {
            let probe = TransportProbe(peer.url("/echo"))
            let transport = probe.transport
            // Sent before the handshake completes: they wait for it, in order.
            let sender = Task {
                for i in 0..<200 { try await transport.send(.text("\(i)")) }
            }
            #expect(await probe.opened() != nil)
            try await sender.value
            for i in 0..<200 {
                #expect(await probe.message()?.text == "\(i)")
            }
            transport.close()
            _ = await probe.ended()
        }
    }

}

/// permessage-deflate against a scripted server: exact bytes from RFC 7692, the RSV1 rules
/// and a handshake answer that must be refused.
@Suite(.timeLimit(.minutes(1))) struct WebSocketCompressionTransportTests {
    static let accepted = "Sec-WebSocket-Extensions: permessage-deflate\r\n"

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// RFC 7692 §7.2.3.1 and §7.2.3.2 on the wire: "Hello" compressed, then the same message
    /// referring back into the shared window, then "Hello" fragmented across two frames.
    @Test func inflatesTheRFCExamples() async throws {
        let server = try ScriptedServer(responseHeaders: Self.accepted) { fd in
            Self.send(fd, [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
            Self.send(fd, [0xC1, 0x05, 0xF2, 0x00, 0x11, 0x00, 0x00])
            Self.send(fd, [0x41, 0x03, 0xF2, 0x48, 0xCD, 0x80, 0x04, 0xC9, 0xC9, 0x07, 0x00])
            ScriptedServer.ignore(fd, seconds: 5)
        }
        try await withDeadline {
            let probe = TransportProbe(server.url)
            let info = try #require(await probe.opened())
            #expect(info.extensions == ["permessage-deflate"])
            for _ in 0..<3 { #expect(await probe.message()?.text == "Hello") }
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test(arguments: [
        [0xC9, 0x00] as [UInt8],                                 // ping with RSV1
        [0x41, 0x03, 0xF2, 0x48, 0xCD, 0xC0, 0x04, 0xC9, 0xC9, 0x07, 0x00],  // RSV1 on a continuation
    ])
    func rsv1OnControlOrContinuationIs1002(frames: [UInt8]) async throws {
        let server = try ScriptedServer(responseHeaders: Self.accepted) { fd in
            Self.send(fd, frames)
            ScriptedServer.ignore(fd, seconds: 5)
        }
        try await withDeadline {
            let probe = TransportProbe(server.url)
            #expect(await probe.opened() != nil)
            let (end, messages) = await probe.ended()
            #expect(messages.isEmpty)
            #expect(end?.error?.code == .protocolViolation)
            #expect(end?.error?.closeCode == 1002 && end?.code == 1006, "1002 is ours; the server sent no close frame")
        }
    }

    /// Our outgoing messages: compressed (RSV1) when deflate is agreed, sent plain when the
    /// server limits our window to 8 bits (zlib cannot deflate with a 256-byte window; an
    /// uncompressed message is always allowed, RFC 7692 §6).
    @Test(arguments: [("", UInt8(0xC1)), ("; client_max_window_bits=8", UInt8(0x81)), ("; client_max_window_bits=9", UInt8(0xC1))])
    func outgoingMessagesHonourTheClientWindow(parameters: String, firstByte: UInt8) async throws {
        let (seen, report) = AsyncStream.makeStream(of: [UInt8].self)
        let server = try ScriptedServer(responseHeaders: "Sec-WebSocket-Extensions: permessage-deflate\(parameters)\r\n") { fd in
            var buf = [UInt8](repeating: 0, count: 2)
            // Beyond the test's deadline: a loaded machine may take seconds to send.
            var tv = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            let n = read(fd, &buf, 2)
            report.yield(Array(buf.prefix(max(n, 0))))
            report.finish()
            ScriptedServer.ignore(fd, seconds: 5)
        }
        try await withDeadline {
            let probe = TransportProbe(server.url)
            #expect(await probe.opened() != nil)
            try await probe.transport.send(.text(String(repeating: "hello ", count: 50)))
            // The first two bytes of our frame, as the server read them.
            var iterator = seen.makeAsyncIterator()
            let bytes = await iterator.next() ?? []
            #expect(bytes.first == firstByte)
            // Masked, and a 300-byte text compresses below 126 bytes (7-bit length) only when deflated.
            if let second = bytes.dropFirst().first {
                #expect(second & 0x80 != 0)
                #expect((second & 0x7F < 126) == (firstByte == 0xC1))
            }
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    /// Compression disabled: a compressed frame is a protocol violation (RFC 6455 §5.2).
    @Test func rsv1WithoutNegotiationIs1002() async throws {
        let server = try ScriptedServer { fd in
            Self.send(fd, [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
            ScriptedServer.ignore(fd, seconds: 5)
        }
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.compression = .disabled
            let probe = TransportProbe(server.url, options: options)
            #expect(await probe.opened() != nil)
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .protocolViolation)
            #expect(end?.error?.closeCode == 1002 && end?.code == 1006, "1002 is ours; the server sent no close frame")
        }
    }

    /// A response with an unknown permessage-deflate parameter, or permessage-deflate when we
    /// offered nothing, fails the handshake with a typed error before `opened`.
    @Test(arguments: [true, false])
    func invalidAcceptanceFailsTheHandshake(offered: Bool) async throws {
        let header = offered
            ? "Sec-WebSocket-Extensions: permessage-deflate; unknown_param\r\n"
            : Self.accepted
        let server = try ScriptedServer(responseHeaders: header) { fd in ScriptedServer.ignore(fd, seconds: 5) }
        try await withDeadline {
            var options = TransportProbe.quietOptions
            if !offered { options.compression = .disabled }
            let probe = TransportProbe(server.url, options: options)
            var opened = false
            var end: TransportEnd?
            while let event = await probe.next() {
                if case .opened = event { opened = true }
                if case .ended(let e) = event { end = e }
            }
            #expect(!opened)
            #expect(end?.error?.code == .handshake)
        }
    }
}

/// A sender waiting for room in the outbound queue leaves it when its task is cancelled.
@Suite(.timeLimit(.minutes(1))) struct WebSocketSendCancellationTests {
    @Test func cancellingASenderWaitingForRoomThrowsCancelledAndSkipsTheMessage() async throws {
        // The handshake never completes, so the first send is accepted (held for the
        // handshake) and fills the queue of capacity 1; the second waits for room.
        let server = try ScriptedServerNoHandshake()
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.outboundQueueCapacity = 1
            let probe = TransportProbe(URL(string: "ws://127.0.0.1:\(server.port)/")!, options: options) {
                $0.connectTimeout = .seconds(30)
            }
            let transport = probe.transport
            let first = Task { try await transport.send(.text("first"), flush: true) }
            // Wait until the first message is the one holding the queue (the deadline bounds
            // it; a count of yields is the machine's load): a later send then has to wait.
            while transport.sends.withLock({ $0.inFlight }) == 0, !Task.isCancelled { await Task.yield() }
            #expect(transport.sends.withLock { $0.inFlight } == 1)
            let second = Task { try await transport.send(.text("second")) }
            second.cancel()
            do {
                try await second.value
                Issue.record("a cancelled waiting sender must throw")
            } catch let error as RealtimeError {
                #expect(error.code == .cancelled)
            }
            // The first sender (waiting for its write) is unaffected until the attempt ends.
            transport.close()
            do {
                try await first.value
                Issue.record("a flushed send must fail when the attempt ends before the write")
            } catch let error as RealtimeError {
                #expect(error.code == .notConnected)
            }
            _ = await probe.ended()
        }
    }

    @Test func aSenderCancelledBeforeItCallsSendThrowsCancelled() async throws {
        let server = try ScriptedServerNoHandshake()
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.outboundQueueCapacity = 1
            let probe = TransportProbe(URL(string: "ws://127.0.0.1:\(server.port)/")!, options: options)
            let transport = probe.transport
            let first = Task { try await transport.send(.text("first")) }
            while transport.sends.withLock({ $0.inFlight }) == 0, !Task.isCancelled { await Task.yield() }
            let second = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await transport.send(.text("second"))
            }
            do {
                try await second.value
                Issue.record("a cancelled sender must throw")
            } catch let error as RealtimeError {
                #expect(error.code == .cancelled)
            }
            transport.close()
            _ = try? await first.value
            _ = await probe.ended()
        }
    }
}

/// Accepts TCP connections and never answers.
final class ScriptedServerNoHandshake: @unchecked Sendable {
    let port: Int
    private let listener: Int32

    init() throws {
        (listener, port) = ScriptedServer.listen(backlog: 4)
    }

    deinit { close(listener) }
}

@Suite(.timeLimit(.minutes(1))) struct WebSocketTransportLifetimeTests {
    @Test func droppingAnOpenTransportEndsItsEvents() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline {
            var transport: WebSocketTransport? = WebSocketTransport(
                request: TransportRequest(url: peer.url("/echo")), options: TransportProbe.quietOptions)
            let events = transport!.eventStream()
            var iterator = events.makeAsyncIterator()
            guard case .opened? = await iterator.next() else {
                Issue.record("expected opened")
                return
            }
            transport = nil
            var ended: TransportEnd?
            while let event = await iterator.next() {
                if case .ended(let e) = event { ended = e }
            }
            #expect(ended?.error?.code == .cancelled)
        }
    }
}
