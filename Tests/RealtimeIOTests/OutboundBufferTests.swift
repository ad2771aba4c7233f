import RealtimeCore
import RealtimeIO
import RealtimeTestSupport
import Testing

/// The pending-writes value type under a socket: enqueue, what to write next, partial
/// writes, the completions a write covers, and its memory bounds.
@Suite(.timeLimit(.minutes(1))) struct OutboundBufferTests {
    /// Records which completions ran, in order, and with what.
    final class Log: Sendable {
        let entries = LockedValue<[String]>([])
        func completion(_ name: String) -> OutboundBuffer.Completion {
            { error in self.entries.withLock { $0.append(error == nil ? name : "\(name):\(error!.code)") } }
        }
        var all: [String] { entries.withLock { $0 } }
    }

    static func run(_ completions: [OutboundBuffer.Completion]) {
        for completion in completions { completion(nil) }
    }

    /// Takes what the next write offers, as if the kernel took `limit` bytes of it.
    static func write(_ buffer: inout OutboundBuffer, upTo limit: Int = .max) -> [UInt8] {
        let taken = buffer.withNextWrite { Array($0.prefix(limit)) }
        buffer.didWrite(taken.count)
        return taken
    }

    @Test func writesComeOutInOrderAndCompleteWhenTheirLastByteIsWritten() {
        let log = Log()
        var buffer = OutboundBuffer()
        buffer.enqueue([1, 2, 3], completion: log.completion("a"))
        buffer.enqueue([4, 5], completion: nil)
        buffer.enqueue([6], completion: log.completion("c"))
        #expect(buffer.pendingBytes == 6)
        #expect(buffer.pendingCompletions == 2)
        #expect(Self.write(&buffer, upTo: 2) == [1, 2])
        Self.run(buffer.takeDueCompletions())
        #expect(log.all.isEmpty, "a partial write completes nothing")
        #expect(Self.write(&buffer, upTo: 4) == [3, 4, 5, 6])
        Self.run(buffer.takeDueCompletions())
        #expect(log.all == ["a", "c"])
        #expect(buffer.isEmpty && buffer.pendingCompletions == 0)
        #expect(buffer.bytesQueued == 6 && buffer.bytesWritten == 6)
    }

    @Test func oneWriteCoveringSeveralCompletesEachOnce() {
        let log = Log()
        var buffer = OutboundBuffer()
        for i in 0..<5 { buffer.enqueue([UInt8(i)], completion: log.completion("\(i)")) }
        #expect(Self.write(&buffer, upTo: 3) == [0, 1, 2])
        Self.run(buffer.takeDueCompletions())
        #expect(log.all == ["0", "1", "2"])
        Self.run(buffer.takeDueCompletions())
        #expect(log.all == ["0", "1", "2"], "never twice")
        #expect(Self.write(&buffer) == [3, 4])
        Self.run(buffer.takeDueCompletions())
        #expect(log.all == ["0", "1", "2", "3", "4"])
    }

    /// Nothing pending: the caller wrote straight from its array; only the rest is kept.
    @Test func directWritesKeepOnlyTheRest() {
        let log = Log()
        var buffer = OutboundBuffer()
        buffer.enqueue([1, 2, 3, 4], alreadyWritten: 4, completion: log.completion("whole"))
        #expect(buffer.isEmpty)
        Self.run(buffer.takeDueCompletions())
        #expect(log.all == ["whole"], "due at once")
        buffer.enqueue([5, 6, 7], alreadyWritten: 1, completion: log.completion("part"))
        #expect(buffer.pendingBytes == 2)
        Self.run(buffer.takeDueCompletions())
        #expect(log.all == ["whole"])
        #expect(Self.write(&buffer) == [6, 7])
        Self.run(buffer.takeDueCompletions())
        #expect(log.all == ["whole", "part"])
    }

    /// A completion with no bytes of its own waits for everything before it (a TLS batch's
    /// senders, whose plaintext became one run of records).
    @Test func aMarkerCompletesAfterEverythingBeforeIt() {
        let log = Log()
        var buffer = OutboundBuffer()
        buffer.appendProduced { $0 += [9, 9, 9] }
        buffer.addCompletion(log.completion("m1"))
        buffer.addCompletion(log.completion("m2"))
        _ = Self.write(&buffer, upTo: 2)
        Self.run(buffer.takeDueCompletions())
        #expect(log.all.isEmpty)
        _ = Self.write(&buffer)
        Self.run(buffer.takeDueCompletions())
        #expect(log.all == ["m1", "m2"])
        buffer.addCompletion(log.completion("m3"))
        Self.run(buffer.takeDueCompletions())
        #expect(log.all == ["m1", "m2", "m3"], "nothing pending: due at once")
    }

    @Test func theNextWriteIsBoundedByMaxWriteSize() {
        var buffer = OutboundBuffer(maxWriteSize: 4)
        buffer.enqueue(Array(0..<10), completion: nil)
        #expect(buffer.withNextWrite { $0.count } == 4)
        #expect(Self.write(&buffer) == [0, 1, 2, 3])
        #expect(Self.write(&buffer) == [4, 5, 6, 7])
        #expect(Self.write(&buffer) == [8, 9])
        #expect(buffer.withNextWrite { $0.count } == 0)
    }

    /// Random enqueues and partial writes: the bytes come out exactly once, in order, and
    /// every completion runs once, after its last byte, whatever the kernel takes.
    @Test func randomPartialWritesKeepOrderAndCompletions() async {
        var rng = SeededGenerator(seed: 42)
        var buffer = OutboundBuffer(maxWriteSize: 50_000)
        var expected: [UInt8] = []
        var written: [UInt8] = []
        var ends: [Int: Int] = [:] // completion id -> end offset
        let done = LockedValue<[Int]>([])
        var next = 0
        for round in 0..<2000 {
            await yieldToOtherTests(every: 100, round)
            if Bool.random(using: &rng) {
                let bytes = (0..<Int.random(in: 0...3000, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                expected += bytes
                let id = next
                next += 1
                ends[id] = expected.count
                buffer.enqueue(bytes, completion: { _ in done.withLock { $0.append(id) } })
            } else {
                written += Self.write(&buffer, upTo: Int.random(in: 0...8000, using: &rng))
                for completion in buffer.takeDueCompletions() { completion(nil) }
                let finished = done.withLock { $0 }
                #expect(finished == finished.sorted(), "completions in order")
                #expect(finished.allSatisfy { ends[$0]! <= written.count }, "never before the last byte")
                #expect(Set(finished).count == finished.count, "each once")
            }
        }
        while !buffer.isEmpty { written += Self.write(&buffer) }
        for completion in buffer.takeDueCompletions() { completion(nil) }
        #expect(written == expected)
        #expect(done.withLock { $0 } == Array(0..<next))
    }

    /// A burst larger than the retained capacity does not stay pinned once written, and a
    /// long-running buffer compacts its written prefix.
    @Test func memoryIsReleasedAfterABurst() {
        var buffer = OutboundBuffer(maxWriteSize: 1 << 20, retainedCapacity: 64 << 10)
        buffer.enqueue([UInt8](repeating: 1, count: 1 << 20), completion: nil)
        buffer.withNextWrite { _ in }
        buffer.didWrite(600_000)
        #expect(buffer.pendingBytes == (1 << 20) - 600_000)
        // More than half was written: the prefix is compacted away, so the next burst reuses
        // the storage instead of growing it to 1.5 MiB.
        buffer.enqueue([UInt8](repeating: 2, count: 500_000), completion: nil)
        #expect(buffer.storageCapacity < 1_200_000)
        buffer.didWrite(buffer.pendingBytes)
        buffer.enqueue([1], completion: nil)
        #expect(buffer.storageCapacity <= 64 << 10)
    }

    @Test func removeAllReturnsEveryOutstandingCompletion() {
        let log = Log()
        var buffer = OutboundBuffer()
        buffer.enqueue([1], completion: log.completion("a"))
        buffer.enqueue([2], completion: log.completion("b"))
        _ = Self.write(&buffer, upTo: 1)
        Self.run(buffer.takeDueCompletions())
        for completion in buffer.removeAll() { completion(RealtimeError(.notConnected)) }
        #expect(log.all == ["a", "b:not_connected"])
        #expect(buffer.isEmpty && buffer.pendingCompletions == 0)
    }
}
