/// The last `capacity` distinct elements inserted, with O(1) membership: inserting past the
/// capacity forgets the oldest. For "seen before?" checks over an endless stream in bounded
/// memory (the ids a duplicate filter remembers, the events a resumed stream may replay).
package struct RecentSet<Element: Hashable & Sendable>: Sendable, Hashable {
    package let capacity: Int
    private var members: Set<Element> = []
    /// The members in insertion order, the oldest at `oldest` once the ring is full.
    private var ring: [Element] = []
    private var oldest = 0

    /// - Parameter capacity: how many elements are remembered (at least 1). Nothing is
    /// allocated up front: a client's duplicate window or a stream's replay check that sees
    /// few elements costs only those.
    package init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
    }

    package var count: Int { members.count }

    package func contains(_ element: Element) -> Bool { members.contains(element) }

    /// Remembers `element` (nothing happens when it is already a member), forgetting the
    /// oldest member when the set is full.
    package mutating func insert(_ element: Element) {
        guard members.insert(element).inserted else { return }
        if ring.count < capacity {
            ring.append(element)
            return
        }
        members.remove(ring[oldest])
        ring[oldest] = element
        oldest = (oldest + 1) % capacity
    }
}
