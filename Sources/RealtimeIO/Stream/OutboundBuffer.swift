@_spi(Transport) import RealtimeCore

/// Bytes accepted for a socket that the kernel has not taken yet, with the completions of
/// the writes they belong to (the shape of swift-nio's pending-writes manager), without I/O.
///
/// - **Enqueue:** ``enqueue(_:alreadyWritten:completion:)`` appends a write's bytes (the
///   caller may have handed a prefix to the kernel directly when nothing was pending, which
///   saves the copy); ``appendProduced(by:)`` lets a producer (TLS ciphertext) append in
///   place; ``addCompletion(_:)`` completes once everything enqueued so far is written.
/// - **What to write next:** ``withNextWrite(_:)`` lends the oldest unwritten bytes, at most
///   ``maxWriteSize`` of them, contiguous, for one `send`.
/// - **Partial writes:** ``didWrite(_:)`` advances by what the kernel took, any amount.
/// - **Completions:** a write's completion is due once its last byte is written;
///   ``takeDueCompletions()`` returns the due ones in order, for the caller to run after it
///   is done with the buffer (a completion may write again). ``removeAll()`` returns every
///   other one, to fail when the stream ends.
/// - **Bounds:** ``pendingBytes`` is what the owner limits (a transport's outbound queue);
///   the written prefix is compacted away once it is at least 64 KiB and half the storage,
///   and storage beyond ``retainedCapacity`` is released when a burst has drained, so an
///   idle connection does not keep the memory of its largest write.
package struct OutboundBuffer {
    package typealias Completion = @Sendable (RealtimeError?) -> Void

    /// Largest slice ``withNextWrite(_:)`` lends: one `send` never hogs the loop.
    package let maxWriteSize: Int
    /// Storage capacity kept once everything is written.
    package let retainedCapacity: Int

    private var storage: [UInt8] = []
    /// Start of the unwritten bytes in `storage`.
    private var offset = 0
    /// Completions with the running byte count (``bytesQueued``) they wait for.
    private var completions: [(end: UInt64, callback: Completion)] = []
    private var completionHead = 0
    /// Every byte ever enqueued, and every byte the kernel took.
    package private(set) var bytesQueued: UInt64 = 0
    package private(set) var bytesWritten: UInt64 = 0

    /// `retainedCapacity` defaults to 16 KiB: a quiet connection keeps no more than that of
    /// its largest burst (with thousands of connections, a megabyte each would add up).
    package init(maxWriteSize: Int = 1 << 20, retainedCapacity: Int = 16 << 10) {
        precondition(maxWriteSize > 0, "OutboundBuffer.maxWriteSize must be positive")
        self.maxWriteSize = maxWriteSize
        self.retainedCapacity = retainedCapacity
    }

    /// Bytes enqueued and not yet written.
    package var pendingBytes: Int { storage.count - offset }
    package var isEmpty: Bool { storage.count == offset }
    /// Completions not yet returned.
    package var pendingCompletions: Int { completions.count - completionHead }
    /// The storage's capacity (for tests of the memory bound).
    package var storageCapacity: Int { storage.capacity }

    // MARK: Enqueue

    /// Adds one write. `alreadyWritten` bytes of it went to the kernel directly, which is in
    /// order only when nothing else was pending.
    package mutating func enqueue(_ bytes: UnsafeRawBufferPointer, alreadyWritten: Int = 0, completion: Completion?) {
        precondition(alreadyWritten >= 0 && alreadyWritten <= bytes.count, "OutboundBuffer: alreadyWritten out of range")
        precondition(alreadyWritten == 0 || isEmpty, "OutboundBuffer: a direct write overtook pending bytes")
        if isEmpty { reset() }
        if alreadyWritten < bytes.count {
            storage.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[alreadyWritten...]).assumingMemoryBound(to: UInt8.self))
        }
        bytesQueued += UInt64(bytes.count)
        bytesWritten += UInt64(alreadyWritten)
        if let completion { completions.append((bytesQueued, completion)) }
    }

    package mutating func enqueue(_ bytes: [UInt8], alreadyWritten: Int = 0, completion: Completion?) {
        bytes.withUnsafeBytes { enqueue($0, alreadyWritten: alreadyWritten, completion: completion) }
    }

    /// Lets `produce` append bytes to the storage in place (e.g. TLS records drained from a
    /// memory BIO); returns how many it appended.
    @discardableResult
    package mutating func appendProduced(by produce: (inout [UInt8]) -> Void) -> Int {
        if isEmpty { reset() }
        let before = storage.count
        produce(&storage)
        precondition(storage.count >= before, "OutboundBuffer: a producer removed bytes")
        let added = storage.count - before
        bytesQueued += UInt64(added)
        return added
    }

    /// A completion that is due once everything enqueued so far is written (at once, through
    /// ``takeDueCompletions()``, when that is already the case).
    package mutating func addCompletion(_ completion: @escaping Completion) {
        completions.append((bytesQueued, completion))
    }

    // MARK: Writing

    /// Calls `body` with the oldest unwritten bytes (at most ``maxWriteSize``; empty when
    /// nothing is pending). Report what the kernel took with ``didWrite(_:)``.
    package func withNextWrite<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { raw in
            let end = offset + min(maxWriteSize, raw.count - offset)
            return try body(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
        }
    }

    /// The kernel took `count` bytes of the next write (a partial write is any count up to
    /// what ``withNextWrite(_:)`` lent).
    package mutating func didWrite(_ count: Int) {
        precondition(count >= 0 && count <= pendingBytes, "OutboundBuffer: wrote more than was pending")
        offset += count
        bytesWritten += UInt64(count)
        if isEmpty {
            reset()
        } else if offset >= 1 << 16 && offset * 2 >= storage.count {
            storage.removeFirst(offset)
            offset = 0
        }
    }

    /// The completions whose bytes are all written, in enqueue order.
    package mutating func takeDueCompletions() -> [Completion] {
        var due: [Completion] = []
        while completionHead < completions.count, completions[completionHead].end <= bytesWritten {
            due.append(completions[completionHead].callback)
            completionHead += 1
        }
        if completionHead == completions.count {
            completions.removeAll(keepingCapacity: completions.capacity <= 1024)
            completionHead = 0
        } else if completionHead >= 256 {
            completions.removeFirst(completionHead)
            completionHead = 0
        }
        return due
    }

    /// Drops every pending byte; returns every completion not yet returned (to fail).
    package mutating func removeAll() -> [Completion] {
        let rest = completions[completionHead...].map(\.callback)
        storage = []
        offset = 0
        completions = []
        completionHead = 0
        return rest
    }

    /// Everything is written: start the storage over, releasing a burst's capacity.
    private mutating func reset() {
        guard offset > 0 || storage.capacity > retainedCapacity else { return }
        storage.removeAll(keepingCapacity: storage.capacity <= retainedCapacity)
        offset = 0
    }
}
