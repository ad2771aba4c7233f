@testable import RealtimeIO
import RealtimeTestSupport
import Testing

@Suite("TimerHeap", .timeLimit(.minutes(1)))
struct TimerHeapTests {
    @Test("10,000 seeded entries pop in (deadline, sequence) order, ties in insertion order")
    func order() {
        var rng = SeededGenerator(seed: 7)
        var heap = TimerHeap()
        var all: [TimerHeap.Entry] = []
        for seq in 0..<10_000 {
            // Few distinct deadlines, so ties are common.
            let e = TimerHeap.Entry(deadline: UInt64.random(in: 0...500, using: &rng), sequence: UInt64(seq))
            heap.insert(e)
            all.append(e)
        }
        var popped: [TimerHeap.Entry] = []
        while let e = heap.removeFirst() { popped.append(e) }
        let expected = all.sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
        #expect(popped.map(\.sequence) == expected.map(\.sequence))
        #expect(heap.isEmpty)
    }

    @Test("compact keeps exactly the live entries and the heap order")
    func compact() {
        var rng = SeededGenerator(seed: 9)
        var heap = TimerHeap()
        for seq in 0..<2_000 {
            heap.insert(TimerHeap.Entry(deadline: UInt64.random(in: 0...10_000, using: &rng), sequence: UInt64(seq)))
        }
        heap.compact { $0.sequence % 3 != 0 }
        #expect(heap.count == 2_000 - 667)
        var last: (UInt64, UInt64) = (0, 0)
        var ok = true
        while let e = heap.removeFirst() {
            if (e.deadline, e.sequence) < last || e.sequence % 3 == 0 { ok = false }
            last = (e.deadline, e.sequence)
        }
        #expect(ok)
    }

    @Test("interleaved insert and pop")
    func interleaved() {
        var heap = TimerHeap()
        heap.insert(.init(deadline: 5, sequence: 1))
        heap.insert(.init(deadline: 3, sequence: 2))
        #expect(heap.removeFirst()?.sequence == 2)
        heap.insert(.init(deadline: 1, sequence: 3))
        heap.insert(.init(deadline: 5, sequence: 4))
        #expect(heap.first?.sequence == 3)
        #expect(heap.removeFirst()?.sequence == 3)
        #expect(heap.removeFirst()?.sequence == 1)
        #expect(heap.removeFirst()?.sequence == 4)
        #expect(heap.removeFirst() == nil)
    }
}
