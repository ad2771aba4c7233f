@_spi(Transport) import RealtimeCore
import RealtimeTesting
import RealtimeTestSupport
import Testing
@testable import RealtimeWebSocket

/// The one send path on the production connection, with only its loop and byte stream
/// embedded: a send before open waits in the send queue and follows the handshake; short
/// writes and a full kernel buffer keep order and the queue's bounds; a send while closing
/// and an abort with waiting senders fail the way the contract says; application messages,
/// pings, pongs and the close frame leave in order.
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedSendTests {
    typealias Sends = WebSocketSendMachine<CheckedContinuation<Void, any Error>>

    /// Lets the tasks the test started reach the send queue: yields until `condition` holds.
    /// How long the sender's task takes to be scheduled is the machine's load, not the
    /// contract: a count of yields failed a loaded run, so only the suite's time limit bounds
    /// the wait (a sender that never arrives fails it, naming `what`).
    static func settle(
        _ condition: () -> Bool, _ what: Comment, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        while !condition(), !Task.isCancelled { await Task.yield() }
        #expect(condition(), what, sourceLocation: sourceLocation)
    }

    /// An open transport whose send queue holds `queue` messages, behind a kernel buffer with
    /// no room: what is sent stays in the stream or the queue until the test makes room.
    static func openWithAFullKernel(
        queue: Int, _ configure: (inout WebSocketOptions) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> EmbeddedWebSocket {
        var options = EmbeddedWebSocket.quietOptions
        options.outboundQueueCapacity = queue
        configure(&options)
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil, sourceLocation: sourceLocation)
        ws.stream.kernelCapacity = 0
        return ws
    }

    static func texts(_ frames: [WebSocketMessageAssembler.Output]) -> [String] {
        frames.map { frame in
            switch frame {
            case .text(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .string(let text): return text
            case .binary(let bytes): return "<\(bytes.count) B>"
            case .ping(let payload): return "ping \(payload)"
            case .pong(let payload): return "pong \(payload)"
            case .close(let code, _): return "close \(code.map(String.init) ?? "-")"
            }
        }
    }

    // MARK: - Before open

    /// Sends during connect and handshake are accepted into the send queue (non-flush ones
    /// return at once); the stream holds nothing before it connects, the handshake request is
    /// the first thing written, and the held messages follow the 101 in order.
    @Test func sendsBeforeOpenWaitInTheSendQueueAndFollowTheHandshake() async throws {
        let ws = EmbeddedWebSocket()
        try await ws.send(.text("before start"))
        ws.start()
        try await ws.send(.text("connecting"))
        #expect(ws.stream.pendingWriteBytes == 0 && ws.stream.unreadBytes == 0, "the stream holds no bytes before it connects")
        ws.stream.acceptConnection()
        try await ws.send(.text("handshaking"))
        let flushed = Task { try await ws.transport.send(.text("flushed"), flush: true) }
        await Self.settle({ ws.transport.sends.withLock { $0.acceptedCount } == 4 }, "four messages wait in the one queue")
        ws.loop.run()
        // The 101 answers what was written so far: a message written before it would be lost
        // to the frames below.
        ws.acceptHandshake()
        #expect(Self.texts(ws.clientFrames()) == ["before start", "connecting", "handshaking", "flushed"])
        try await flushed.value
        #expect(ws.transport.sends.withLock { $0.inFlight } == 0)
    }

    /// A ping payload is at most 125 bytes (RFC 6455 §5.5): a longer one is refused with
    /// `invalid_configuration` and writes nothing; 125 bytes go out as they are.
    @Test func aPingPayloadOver125BytesIsRefusedAndNothingIsWritten() async throws {
        let ws = EmbeddedWebSocket(options: EmbeddedWebSocket.quietOptions)
        #expect(ws.open() != nil)
        let error = await #expect(throws: RealtimeError.self) { try await ws.send(.ping(Array(repeating: 1, count: 126))) }
        #expect(error?.code == .invalidConfiguration)
        #expect(ws.clientFrames().isEmpty, "nothing was written for the refused ping")
        try await ws.send(.ping(Array(repeating: 2, count: 125)))
        #expect(ws.clientFrames().map { if case .ping(let p) = $0 { return p.count } else { return -1 } } == [125])
    }

    // MARK: - The kernel

    /// A kernel that takes 7 bytes per call and holds at most 64: the queue's byte bound
    /// holds the sender back, messages arrive whole and in order as the peer reads.
    @Test func shortWritesAndAFullKernelKeepOrderAndTheBounds() async throws {
        var options = EmbeddedWebSocket.quietOptions
        options.maxOutboundBytes = 200
        options.outboundQueueCapacity = 64
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.stream.maxWriteSize = 7
        ws.stream.kernelCapacity = 64
        let texts = (0..<30).map { "m\($0)-" + String(repeating: "x", count: 40) }
        let sent = LockedValue(0)
        let sender = Task {
            for text in texts {
                try await ws.transport.send(.text(text))
                sent.withLock { $0 += 1 }
            }
        }
        var received: [String] = []
        var heldBack = 0
        for _ in 0..<200 where received.count < texts.count {
            await Self.settle({ ws.transport.sends.withLock { $0.waitingCount } == 1 || sent.withLock { $0 } == texts.count },
                "the sender is held back, or done")
            if ws.transport.sends.withLock({ $0.waitingCount }) == 1 { heldBack += 1 }
            let bytes = ws.transport.sends.withLock { $0.inFlightBytes }
            #expect(bytes <= 200, "the byte bound holds: \(bytes)")
            ws.loop.run()
            received += Self.texts(ws.clientFrames(max: 50))
        }
        try await sender.value
        ws.loop.run()
        received += Self.texts(ws.clientFrames())
        #expect(received == texts, "every message, whole and in order")
        #expect(heldBack > 5, "the bound held the sender back again and again")
        #expect(ws.stream.pendingWriteBytes == 0)
    }

    /// `flush: true` returns only once the kernel took the frame's last byte.
    @Test func aFlushSendReturnsOnceTheKernelTookTheFrame() async throws {
        let ws = EmbeddedWebSocket()
        #expect(ws.open() != nil)
        ws.stream.kernelCapacity = 10
        let done = LockedValue(false)
        let flushed = Task {
            try await ws.transport.send(.binary([UInt8](repeating: 7, count: 100)), flush: true)
            done.withLock { $0 = true }
        }
        await Self.settle({ ws.transport.sends.withLock { $0.inFlight } == 1 }, "accepted")
        ws.loop.run()
        #expect(ws.stream.pendingWriteBytes > 0, "the kernel holds 10 bytes, the rest waits in the stream")
        for _ in 0..<100 { await Task.yield() }
        #expect(!done.withLock { $0 }, "not returned while bytes wait for the kernel")
        var bytes: [UInt8] = []
        for _ in 0..<20 where ws.stream.pendingWriteBytes > 0 || ws.stream.unreadBytes > 0 {
            bytes += ws.stream.takeWritten()
        }
        try await flushed.value
        #expect(done.withLock { $0 })
        #expect(bytes.count == 106, "header (2), mask key (4), payload (100)")
    }

    // MARK: - Closing and aborting

    /// A send after `close()` fails with `connection closed`; a sender waiting for room when
    /// `close()` comes fails with `connection closing`; what was accepted goes out before the
    /// close frame.
    @Test func sendsWhileClosingFailAcceptedOnesGoFirst() async throws {
        let ws = Self.openWithAFullKernel(queue: 2)
        try await ws.transport.send(.text("a"))
        ws.loop.run() // "a" is in the stream, waiting for the kernel
        try await ws.transport.send(.text("b")) // accepted, in the send queue
        let waiting = Task { try await ws.transport.send(.text("c")) }
        await Self.settle({ ws.transport.sends.withLock { $0.waitingCount } == 1 }, "c waits for room")
        ws.close(code: 4000)
        let refused = await #expect(throws: RealtimeError.self) { try await waiting.value }
        #expect(refused == Sends.closingError)
        let late = await #expect(throws: RealtimeError.self) { try await ws.transport.send(.text("d")) }
        #expect(late == Sends.closedError)
        ws.stream.kernelCapacity = .max
        ws.stream.takeWritten(max: 0) // the kernel has room again: the stream hands it what waits
        #expect(Self.texts(ws.clientFrames()) == ["a", "b", "close 4000"], "accepted messages, then the close frame")
    }

    /// The server's close frame arrives while messages are accepted and not yet drained: they
    /// are written before the echoed close frame; nothing after it.
    @Test func thePeersCloseFrameComesAfterAcceptedMessages() async throws {
        let ws = EmbeddedWebSocket()
        #expect(ws.open() != nil)
        try await ws.transport.send(.text("x"))
        try await ws.transport.send(.ping([1]))
        ws.serverSendsClose(code: 1000)
        #expect(Self.texts(ws.clientFrames()) == ["x", "ping [1]", "close 1000"])
        let late = await #expect(throws: RealtimeError.self) { try await ws.transport.send(.text("late")) }
        #expect(late == Sends.closedError)
    }

    /// `abort()` with every kind of sender waiting: the flush sender whose frame is in the
    /// stream fails with the stream's error, the accepted non-flush sender has returned and
    /// its message is dropped, the senders waiting for room fail with `connection closing`.
    @Test func abortResolvesEveryWaitingSender() async throws {
        let ws = Self.openWithAFullKernel(queue: 2)
        let inStream = Task { try await ws.transport.send(.text("in the stream"), flush: true) }
        await Self.settle({ ws.transport.sends.withLock { $0.inFlight } == 1 }, "accepted")
        ws.loop.run()
        #expect(ws.transport.sends.withLock { $0.queuedCount } == 0 && ws.stream.pendingWriteBytes > 0)
        try await ws.transport.send(.text("accepted"))
        let waiting = Task { try await ws.transport.send(.text("waiting")) }
        let waitingFlush = Task { try await ws.transport.send(.text("waiting flush"), flush: true) }
        await Self.settle({ ws.transport.sends.withLock { $0.waitingCount } == 2 }, "two senders wait for room")
        ws.abort()
        let streamError = await #expect(throws: RealtimeError.self) { try await inStream.value }
        #expect(streamError == RealtimeError(.notConnected, detail: "stream closed"))
        for task in [waiting, waitingFlush] {
            let error = await #expect(throws: RealtimeError.self) { try await task.value }
            #expect(error == Sends.closingError)
        }
        #expect(ws.ended()?.error?.code == .cancelled)
        #expect(ws.transport.sends.withLock { ($0.inFlight, $0.queuedCount, $0.phase) } == (0, 0, .closed))
    }

    /// A peer that stops reading: the write timeout ends the attempt with `peer_not_reading`,
    /// and a sender still waiting for room fails with `connection closed` (the room the failed
    /// write frees admits nobody: the queue ended first).
    @Test func aPeerThatStopsReadingFailsTheWaitingSenders() async throws {
        let ws = Self.openWithAFullKernel(queue: 1) { $0.writeTimeout = .seconds(4) }
        try await ws.send(.text("stuck"))
        let waiting = Task { try await ws.transport.send(.text("behind")) }
        await Self.settle({ ws.transport.sends.withLock { $0.waitingCount } == 1 }, "waits for room")
        ws.advance(by: .seconds(6))
        #expect(ws.ended()?.error?.code == .peerNotReading)
        let error = await #expect(throws: RealtimeError.self) { try await waiting.value }
        #expect(error == Sends.closedError)
    }

    // MARK: - Cancelled senders

    /// The handshake never completes, so the first send (a flush) is accepted and holds the
    /// queue of one; a second sender waits for room and leaves it with `cancelled` when its
    /// task is cancelled. The first is unaffected until the attempt ends, then fails with
    /// `not_connected`: its frame was never written.
    @Test func cancellingASenderWaitingForRoomThrowsCancelledAndSkipsTheMessage() async throws {
        var options = EmbeddedWebSocket.quietOptions
        options.outboundQueueCapacity = 1
        let ws = EmbeddedWebSocket(options: options)
        ws.start()
        let first = Task { try await ws.transport.send(.text("first"), flush: true) }
        await Self.settle({ ws.transport.sends.withLock { $0.inFlight } == 1 }, "the first send holds the queue")
        let second = Task { try await ws.transport.send(.text("second")) }
        await Self.settle({ ws.transport.sends.withLock { $0.waitingCount } == 1 }, "the second waits for room")
        second.cancel()
        let error = await #expect(throws: RealtimeError.self) { try await second.value }
        #expect(error?.code == .cancelled)
        #expect(ws.transport.sends.withLock { ($0.waitingCount, $0.inFlight) } == (0, 1), "the first still holds its place")
        ws.close()
        let firstError = await #expect(throws: RealtimeError.self) { try await first.value }
        #expect(firstError?.code == .notConnected)
        #expect(ws.transport.sends.withLock { ($0.inFlight, $0.queuedCount, $0.waitingCount) } == (0, 0, 0))
    }

    /// A sender whose task is cancelled before it calls `send` throws `cancelled` and takes
    /// no place in the queue.
    @Test func aSenderCancelledBeforeItCallsSendThrowsCancelled() async throws {
        var options = EmbeddedWebSocket.quietOptions
        options.outboundQueueCapacity = 1
        let ws = EmbeddedWebSocket(options: options)
        ws.start()
        let first = Task { try await ws.transport.send(.text("first")) }
        await Self.settle({ ws.transport.sends.withLock { $0.inFlight } == 1 }, "the first send holds the queue")
        let second = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await ws.transport.send(.text("second"))
        }
        let error = await #expect(throws: RealtimeError.self) { try await second.value }
        #expect(error?.code == .cancelled)
        #expect(ws.transport.sends.withLock { ($0.waitingCount, $0.inFlight) } == (0, 1))
        try await first.value
        ws.abort()
    }

    // MARK: - Order with control frames

    /// Application pings travel the send queue with the messages; pongs and heartbeats go
    /// straight to the stream, behind whatever was handed to it before.
    @Test func messagesPingsAndPongsKeepTheirOrder() async throws {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = .ping(every: .seconds(10))
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        try await ws.send(.text("1"))
        try await ws.transport.send(.ping([2]))
        try await ws.transport.send(.text("3"))
        ws.serverSendsPing([4]) // answered during the read; the queued drain runs after it
        ws.advance(by: .seconds(10))
        try await ws.send(.text("5"))
        #expect(Self.texts(ws.clientFrames()) == ["1", "pong [4]", "ping [2]", "3", "ping []", "5"])
    }
}
