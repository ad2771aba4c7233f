import Synchronization
import Testing
@testable import RealtimeCore

/// ``BoundedChannel/setRelay(_:)``: a producer-side hook that moves elements to another
/// channel (the client's buffer) without a hop through the consumer, and its pause/resume
/// protocol, including a resume that arrives before the pause it ends.
@Suite(.timeLimit(.minutes(1))) struct BoundedChannelRelayTests {
    /// A relay that moves even numbers to `destination` and leaves odd ones here.
    static func evens(to destination: BoundedChannel<Int>) -> @Sendable (inout [Int]) -> Bool {
        { elements in
            var moved = elements.filter { $0 % 2 == 0 }
            elements.removeAll { $0 % 2 == 0 }
            return destination.send(draining: &moved)
        }
    }

    @Test func relayTakesWhatItDeliversAndLeavesTheRestInOrder() async {
        let source = BoundedChannel<Int>(capacity: 100)
        let destination = BoundedChannel<Int>(capacity: 100)
        source.setRelay(Self.evens(to: destination))
        #expect(source.send(0))
        #expect(source.send(contentsOf: 1...4))
        var batch = [5, 6, 7]
        #expect(source.send(draining: &batch))
        #expect(batch.isEmpty)
        source.finish()
        destination.finish()
        var here: [Int] = []
        for await x in source { here.append(x) }
        var there: [Int] = []
        for await x in destination { there.append(x) }
        #expect(here == [1, 3, 5, 7])
        #expect(there == [0, 2, 4, 6])
    }

    @Test func fullDestinationPausesTheProducerUntilRelayDemand() {
        let source = BoundedChannel<Int>(capacity: 100)
        let destination = BoundedChannel<Int>(capacity: 2)
        let resumes = Atomic<Int>(0)
        source.setDemandHandler { resumes.add(1, ordering: .relaxed) }
        source.setRelay(Self.evens(to: destination))
        #expect(source.send(0))
        #expect(source.send(contentsOf: [2, 4]) == false, "the destination is full: pause")
        #expect(destination.bufferedCount == 3, "nothing is dropped")
        #expect(resumes.load(ordering: .relaxed) == 0)
        source.relayDemand()
        #expect(resumes.load(ordering: .relaxed) == 1, "the paused producer is told to resume")
        source.relayDemand()
        #expect(resumes.load(ordering: .relaxed) == 1, "only a paused producer is resumed")
    }

    /// The destination's consumer may drain (and its demand arrive) between the relay's
    /// "full" and the source recording the pause: that demand must not be lost, or the
    /// producer would stay paused forever.
    @Test func demandBeforeThePauseIsKept() {
        let source = BoundedChannel<Int>(capacity: 100)
        let resumes = Atomic<Int>(0)
        source.setDemandHandler { resumes.add(1, ordering: .relaxed) }
        // Unowned: the channel keeps its relay, so a strong capture would be a cycle (a leak).
        source.setRelay { [unowned source] elements in
            elements.removeAll()
            source.relayDemand()  // the destination drained at once
            return false
        }
        #expect(source.send(0), "a demand that came first cancels the pause")
        #expect(resumes.load(ordering: .relaxed) == 0)
    }

    @Test func removingTheRelayResumesAPausedProducer() {
        let source = BoundedChannel<Int>(capacity: 100)
        let resumes = Atomic<Int>(0)
        source.setDemandHandler { resumes.add(1, ordering: .relaxed) }
        source.setRelay { elements in
            elements.removeAll()
            return false
        }
        #expect(source.send(1) == false)
        source.setRelay(nil)
        #expect(resumes.load(ordering: .relaxed) == 1)
        #expect(source.send(2), "without a relay the channel's own capacity applies")
        #expect(source.bufferedCount == 1)
    }

    @Test func terminationRemovesTheRelay() async {
        let source = BoundedChannel<Int>(capacity: 100)
        let relayed = Atomic<Int>(0)
        source.setRelay { elements in
            relayed.add(elements.count, ordering: .relaxed)
            elements.removeAll()
            return true
        }
        #expect(source.send(1))
        source.terminate()
        #expect(source.send(2))
        #expect(relayed.load(ordering: .relaxed) == 1)
        #expect(await source.next() == nil)
    }
}
