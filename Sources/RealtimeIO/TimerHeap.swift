/// A binary min-heap of timer deadlines; the loop thread's private timer queue.
///
/// Cancellation is lazy: a cancelled timer's entry stays in the heap until it reaches the
/// top (or until ``compact(keeping:)`` runs), so cancel is O(1) and schedule/pop O(log n).
/// Entries with equal deadlines pop in scheduling order (`sequence` breaks ties), so timers
/// set for the same instant fire in the order they were created.
struct TimerHeap {
    struct Entry {
        /// Monotonic nanoseconds.
        var deadline: UInt64
        /// Scheduling order; also the timer's identifier.
        var sequence: UInt64

        func fires(before other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func insert(_ e: Entry) {
        entries.append(e)
        siftUp(entries.count - 1)
    }

    @discardableResult
    mutating func removeFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        let top = entries[0]
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
        return top
    }

    /// Drops every entry for which `keep` is false and rebuilds the heap in O(n).
    mutating func compact(keeping keep: (Entry) -> Bool) {
        entries.removeAll { !keep($0) }
        var i = entries.count / 2 - 1
        while i >= 0 {
            siftDown(i)
            i -= 1
        }
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].fires(before: entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        let n = entries.count
        while true {
            let l = 2 * parent + 1
            let r = l + 1
            var best = parent
            if l < n && entries[l].fires(before: entries[best]) { best = l }
            if r < n && entries[r].fires(before: entries[best]) { best = r }
            if best == parent { return }
            entries.swapAt(parent, best)
            parent = best
        }
    }
}
