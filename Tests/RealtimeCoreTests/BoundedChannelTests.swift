import Synchronization
import Testing
@_spi(Transport) @testable import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct BoundedChannelTests {
    @Test func deliversInOrderThenEnds() async {
        let ch = BoundedChannel<Int>(capacity: 4)
        for i in 0..<3 { #expect(ch.send(i)) }
        ch.finish()
        var got: [Int] = []
        for await x in ch { got.append(x) }
        #expect(got == [0, 1, 2])
        #expect(ch.send(9) == true)  // after finish: discarded, never a pause request
    }

    @Test func signalsPauseAtCapacityAndDemandAtHalf() async {
        let ch = BoundedChannel<Int>(capacity: 4)
        let demands = Atomic<Int>(0)
        ch.setDemandHandler { demands.add(1, ordering: .relaxed) }
        #expect(ch.send(0))
        #expect(ch.send(1))
        #expect(ch.send(2))
        #expect(ch.send(3) == false)  // full: pause
        #expect(ch.send(4) == false)  // still enqueued, never dropped
        _ = await ch.next()
        _ = await ch.next()
        let early = demands.load(ordering: .relaxed)
        #expect(early == 0)  // 3 left > capacity/2
        _ = await ch.next()
        let late = demands.load(ordering: .relaxed)
        #expect(late == 1)
        #expect(await ch.next() == 3)
        #expect(await ch.next() == 4)
    }

    @Test func consumerCancellationTerminates() async {
        let ch = BoundedChannel<Int>(capacity: 2)
        let terminated = Atomic<Bool>(false)
        ch.setTerminationHandler { terminated.store(true, ordering: .relaxed) }
        let task = Task { await ch.next() }
        task.cancel()
        #expect(await task.value == nil)
        let wasTerminated = terminated.load(ordering: .relaxed)
        #expect(wasTerminated)
        #expect(await ch.next() == nil)
    }
}
