@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// An in-memory ``ByteStream`` on a ``ManualLoop``, played by the test: it records what the
/// owner writes, delivers the bytes the test feeds, and fails the way a socket fails.
///
/// The kernel is a send buffer of ``kernelCapacity`` bytes that the peer empties with
/// ``takeWritten(max:)``; each "system call" takes at most ``maxWriteSize`` bytes (short
/// writes). A full buffer keeps bytes pending (``pendingWriteBytes``) until the peer reads,
/// the way a peer that stopped reading leaves a real socket. Write completions run when the
/// kernel took their last byte, inside the call that handed it over, as on a socket.
///
/// Every method the test calls runs its callbacks on the loop (``ManualLoop/onLoop(_:)``),
/// then the work they queued.
package final class EmbeddedByteStream: ByteStream, @unchecked Sendable {
    package typealias Completion = @Sendable (RealtimeError?) -> Void

    package enum Phase: Sendable, Equatable {
        case idle, connecting, open, closed
    }

    package weak var delegate: (any ByteStreamDelegate)?
    package let loop: ManualLoop
    /// The read size the owner asked for.
    package let readChunkSize: Int
    package private(set) var phase: Phase = .idle
    /// Where the owner asked to connect.
    package private(set) var endpoint: ByteStreamEndpoint?
    /// True once the owner called ``close()``.
    package private(set) var closedByOwner = false
    /// True while the owner paused reading.
    package private(set) var readsPaused = false

    /// Room in the kernel's send buffer: what the peer has not read yet counts against it.
    package var kernelCapacity = Int.max
    /// Bytes the kernel takes per system call.
    package var maxWriteSize = Int.max
    /// System calls that handed bytes to the kernel (a batch of writes makes one).
    package private(set) var writeCalls = 0

    private var kernel: [UInt8] = []
    private var outbound = OutboundBuffer()
    private var batchDepth = 0
    /// What the test fed while reads were paused, then the end it injected, if any.
    private var heldReads: [[UInt8]] = []
    private var heldEnd: RealtimeError??

    package init(loop: ManualLoop, readChunkSize: Int = 64 * 1024) {
        self.loop = loop
        self.readChunkSize = readChunkSize
    }

    // MARK: - ByteStream (the owner's side, on the loop)

    package func connect(to endpoint: ByteStreamEndpoint) {
        precondition(loop.inEventLoop, "EmbeddedByteStream used off its loop")
        precondition(phase == .idle, "connect called twice")
        self.endpoint = endpoint
        phase = .connecting
    }

    package func write(_ bytes: [UInt8], completion: Completion?) {
        precondition(loop.inEventLoop, "EmbeddedByteStream used off its loop")
        switch phase {
        case .closed:
            completion?(RealtimeError(.notConnected, detail: "stream closed"))
        case .idle, .connecting:
            preconditionFailure("EmbeddedByteStream.write before the stream connected (the ByteStream contract)")
        case .open:
            outbound.enqueue(bytes, completion: completion)
            if batchDepth == 0 { flush() }
        }
    }

    package func beginBatch() {
        precondition(loop.inEventLoop, "EmbeddedByteStream used off its loop")
        batchDepth += 1
    }

    package func endBatch() {
        precondition(batchDepth > 0, "endBatch without beginBatch")
        batchDepth -= 1
        if batchDepth == 0, phase == .open { flush() }
    }

    package var pendingWriteBytes: Int { outbound.pendingBytes }
    package var bytesWrittenToKernel: UInt64 { outbound.bytesWritten }

    package func pauseReading() {
        precondition(loop.inEventLoop, "EmbeddedByteStream used off its loop")
        readsPaused = true
    }

    /// Held reads are delivered on a later loop pass, as a socket's readiness would be.
    package func resumeReading() {
        precondition(loop.inEventLoop, "EmbeddedByteStream used off its loop")
        guard readsPaused else { return }
        readsPaused = false
        loop.execute { [self] in deliverHeld() }
    }

    package func close() {
        precondition(loop.inEventLoop, "EmbeddedByteStream used off its loop")
        guard phase != .closed else { return }
        closedByOwner = true
        if phase == .open { flush() }
        end()
    }

    // MARK: - The test's side

    /// The connection is up (TCP, and TLS when asked): the owner may write from now on.
    package func acceptConnection() {
        loop.onLoop {
            precondition(phase == .connecting, "acceptConnection before connect")
            phase = .open
            delegate?.byteStreamDidConnect(self)
        }
    }

    /// The peer sent `bytes` (one read). Held while reads are paused.
    package func feed(_ bytes: [UInt8]) {
        loop.onLoop { deliver(bytes) }
    }

    package func feed(_ text: String) {
        feed(Array(text.utf8))
    }

    /// The peer closed its side in order (end of file), after anything fed before.
    package func feedEOF() {
        loop.onLoop { endFromPeer(nil) }
    }

    /// The stream fails with `error`: a reset, an unreachable host, a refused connection, a
    /// TLS alert; after anything fed before.
    package func fail(_ error: RealtimeError = RealtimeError(.network, detail: "read: Connection reset by peer")) {
        loop.onLoop { endFromPeer(error) }
    }

    /// Bytes in the kernel the peer has not read.
    package var unreadBytes: Int { kernel.count }

    /// The peer reads up to `max` bytes from the kernel's buffer; the room it frees takes
    /// pending bytes, as writability would.
    @discardableResult
    package func takeWritten(max: Int = .max) -> [UInt8] {
        loop.onLoop {
            let taken = Array(kernel.prefix(max))
            kernel.removeFirst(taken.count)
            if phase == .open { flush() }
            return taken
        }
    }

    // MARK: - Internals

    private func deliver(_ bytes: [UInt8]) {
        guard phase == .open else { return }
        if readsPaused || !heldReads.isEmpty {
            heldReads.append(bytes)
            return
        }
        bytes.withUnsafeBytes { delegate?.byteStream(self, didRead: $0) }
    }

    private func endFromPeer(_ error: RealtimeError?) {
        guard phase == .open || phase == .connecting else { return }
        if readsPaused || !heldReads.isEmpty {
            heldEnd = .some(error)
            return
        }
        end()
        delegate?.byteStream(self, didCloseWith: error)
    }

    private func deliverHeld() {
        while !readsPaused, phase == .open, !heldReads.isEmpty {
            let bytes = heldReads.removeFirst()
            bytes.withUnsafeBytes { delegate?.byteStream(self, didRead: $0) }
        }
        if !readsPaused, heldReads.isEmpty, let end = heldEnd {
            heldEnd = nil
            endFromPeer(end)
        }
    }

    /// Hands the kernel what fits, one system call per `maxWriteSize` bytes, then runs the
    /// completions of the writes it covered.
    private func flush() {
        while !outbound.isEmpty, kernel.count < kernelCapacity {
            let room = kernelCapacity - kernel.count
            let n = outbound.withNextWrite { chunk in
                let n = min(chunk.count, room, maxWriteSize)
                kernel.append(contentsOf: chunk.prefix(n))
                return n
            }
            writeCalls += 1
            outbound.didWrite(n)
        }
        for completion in outbound.takeDueCompletions() { completion(nil) }
    }

    /// Closed: what the kernel did not take fails, and nothing more is read or written.
    private func end() {
        phase = .closed
        heldReads = []
        let error = RealtimeError(.notConnected, detail: "stream closed")
        for completion in outbound.removeAll() { completion(error) }
    }
}
