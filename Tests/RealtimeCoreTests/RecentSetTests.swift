import RealtimeCore
import RealtimeTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct RecentSetTests {
    @Test func remembersTheLastCapacityDistinctElements() {
        var set = RecentSet<Int>(capacity: 3)
        for n in 1...5 { set.insert(n) }
        #expect(set.count == 3)
        #expect(!set.contains(1) && !set.contains(2))
        #expect(set.contains(3) && set.contains(4) && set.contains(5))
    }

    @Test func aMemberInsertedAgainKeepsItsPlace() {
        var set = RecentSet<String>(capacity: 2)
        set.insert("a")
        set.insert("b")
        set.insert("a")   // already a member: "a" stays the oldest
        set.insert("c")
        #expect(!set.contains("a") && set.contains("b") && set.contains("c"))
        #expect(set.count == 2)
    }

    @Test func agreesWithAPlainModelOnSeededSequences() {
        var rng = SeededGenerator(seed: 7)
        for capacity in [1, 2, 5, 64] {
            var set = RecentSet<Int>(capacity: capacity)
            var model: [Int] = []   // distinct, oldest first
            for _ in 0..<2_000 {
                let n = Int.random(in: 0..<100, using: &rng)
                if !model.contains(n) {
                    model.append(n)
                    if model.count > capacity { model.removeFirst() }
                }
                set.insert(n)
                #expect(set.count == model.count)
                let probe = Int.random(in: 0..<100, using: &rng)
                #expect(set.contains(probe) == model.contains(probe))
            }
        }
    }

    @Test func aCapacityBelowOneRemembersOne() {
        var set = RecentSet<Int>(capacity: 0)
        set.insert(1)
        set.insert(2)
        #expect(set.capacity == 1 && set.count == 1 && set.contains(2))
    }
}
