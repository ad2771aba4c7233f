import RealtimeLLM
import RealtimeTestSupport
import Testing

@testable import RealtimeLLM

@Suite(.timeLimit(.minutes(1))) struct CoalescingStateMachineTests {
    /// Elements are runs of numbers; "mergeable" runs (positive numbers) join.
    typealias Machine = CoalescingStateMachine<[Int], TestFailure>
    struct TestFailure: Error, Equatable {}

    static let interval = Duration.milliseconds(30)

    static func machine(capacity: Int = 100) -> Machine {
        Machine(interval: interval, capacity: capacity) { last, next in
            guard last.allSatisfy({ $0 > 0 }), next.allSatisfy({ $0 > 0 }) else { return false }
            last += next
            return true
        }
    }

    static func ms(_ n: Int) -> Duration { .milliseconds(n) }

    @Test func firstElementGoesOutAtOnceWhenIdle() {
        var m = Self.machine()
        guard case .suspend = m.next(now: .zero) else { Issue.record("expected suspend"); return }
        guard case .deliver(let batch) = m.elementArrived([1], now: Self.ms(5)) else { Issue.record("expected deliver"); return }
        #expect(batch == [[1]])
    }

    @Test func elementsWithinTheIntervalWaitForTheSlotAndMerge() {
        var m = Self.machine()
        _ = m.next(now: .zero)
        _ = m.elementArrived([1], now: .zero)
        guard case .none = m.elementArrived([2], now: Self.ms(5)) else { Issue.record("expected none"); return }
        guard case .none = m.elementArrived([-3], now: Self.ms(6)) else { Issue.record("expected none"); return }
        guard case .suspendUntil(let deadline) = m.next(now: Self.ms(10)) else { Issue.record("expected suspendUntil"); return }
        #expect(deadline == Self.ms(30))
        guard case .none = m.elementArrived([4], now: Self.ms(20)) else { Issue.record("expected none"); return }
        guard case .deliver(let batch, let resume) = m.timerFired(deadline: deadline, now: Self.ms(30)) else {
            Issue.record("expected deliver")
            return
        }
        #expect(batch == [[2], [-3], [4]])
        #expect(!resume)
    }

    @Test func anArrivalWhileWaitingArmsTheTimerForTheSlot() {
        var m = Self.machine()
        _ = m.next(now: .zero)
        _ = m.elementArrived([1], now: .zero)
        guard case .suspend = m.next(now: Self.ms(1)) else { Issue.record("expected suspend"); return }
        guard case .armTimer(let deadline, let pause) = m.elementArrived([2], now: Self.ms(10)) else {
            Issue.record("expected armTimer")
            return
        }
        #expect(deadline == Self.ms(30))
        #expect(!pause)
        // A stale timer (another deadline) does nothing; the right one delivers.
        guard case .none = m.timerFired(deadline: Self.ms(29), now: Self.ms(29)) else { Issue.record("stale timer delivered"); return }
        guard case .deliver(let batch, _) = m.timerFired(deadline: deadline, now: Self.ms(31)) else { Issue.record("expected deliver"); return }
        #expect(batch == [[2]])
    }

    @Test func aConsumerBackAfterTheIntervalGetsThePendingBatchAtOnce() {
        var m = Self.machine()
        _ = m.next(now: .zero)
        _ = m.elementArrived([1], now: .zero)
        _ = m.elementArrived([2], now: Self.ms(1))
        guard case .deliver(let batch, _) = m.next(now: Self.ms(45)) else { Issue.record("expected deliver"); return }
        #expect(batch == [[2]])
        // The slot counts from the last delivery (45 ms), not from the previous slot.
        _ = m.elementArrived([3], now: Self.ms(50))
        guard case .suspendUntil(let deadline) = m.next(now: Self.ms(50)) else { Issue.record("expected suspendUntil"); return }
        #expect(deadline == Self.ms(75))
    }

    @Test func theEndFlushesAtOnceThenFinishes() {
        var m = Self.machine()
        _ = m.next(now: .zero)
        _ = m.elementArrived([1], now: .zero)
        _ = m.elementArrived([2], now: Self.ms(1))
        guard case .suspendUntil = m.next(now: Self.ms(2)) else { Issue.record("expected suspendUntil"); return }
        guard case .deliver(let batch) = m.sourceEnded(nil, now: Self.ms(3)) else { Issue.record("expected deliver"); return }
        #expect(batch == [[2]])
        guard case .finish(let failure) = m.next(now: Self.ms(4)) else { Issue.record("expected finish"); return }
        #expect(failure == nil)
    }

    @Test func aFailureComesAfterThePendingBatchAndOnlyOnce() {
        var m = Self.machine()
        _ = m.elementArrived([1], now: .zero)
        guard case .none = m.sourceEnded(TestFailure(), now: .zero) else { Issue.record("expected none"); return }
        guard case .deliver(let batch, _) = m.next(now: .zero) else { Issue.record("expected deliver"); return }
        #expect(batch == [[1]])
        guard case .finish(let failure) = m.next(now: .zero) else { Issue.record("expected finish"); return }
        #expect(failure == TestFailure())
        guard case .finish(nil) = m.next(now: .zero) else { Issue.record("expected a plain end"); return }
    }

    @Test func aFullQueuePausesTheSourceUntilABatchIsTaken() {
        var m = Self.machine(capacity: 2)
        _ = m.elementArrived([-1], now: .zero)
        guard case .pause = m.elementArrived([-2], now: .zero) else { Issue.record("expected pause"); return }
        #expect(m.isProducerPaused)
        guard case .deliver(let batch, let resume) = m.next(now: .zero) else { Issue.record("expected deliver"); return }
        #expect(batch == [[-1], [-2]])
        #expect(resume)
        #expect(!m.isProducerPaused)
        // Merged elements count once.
        var merging = Self.machine(capacity: 2)
        for n in 1...10 {
            guard case .none = merging.elementArrived([n], now: .zero) else { Issue.record("paused at \(n)"); return }
        }
        #expect(merging.pendingCount == 1)
    }

    @Test func cancellationEndsTheConsumerReleasesTheProducerAndStopsTheSource() {
        var m = Self.machine(capacity: 1)
        _ = m.elementArrived([-1], now: .zero)
        #expect(m.isProducerPaused)
        let action = m.cancelled()
        #expect(!action.finishConsumer)
        #expect(action.resumeProducer)
        guard case .stop = m.elementArrived([-2], now: .zero) else { Issue.record("expected stop"); return }
        guard case .finish(nil) = m.next(now: .zero) else { Issue.record("expected the end"); return }
        guard case .none = m.sourceEnded(nil, now: .zero) else { Issue.record("an end after cancellation acted"); return }

        var waiting = Self.machine()
        _ = waiting.next(now: .zero)
        #expect(waiting.cancelled().finishConsumer)
    }

    /// Seeded random schedules of arrivals, consumer calls, timers and the end: nothing is
    /// lost, reordered or duplicated; batches are never empty, never above the capacity, and
    /// at least an interval apart except the flush at the end; an arrival to an idle waiting
    /// consumer goes out at once.
    @Test(arguments: 1...50) func randomSchedulesKeepTheInvariants(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var simulation = CoalescingSimulation(machine: Self.machine(capacity: Int.random(in: 1...6, using: &rng)))
        var next = 1
        while next <= 200 || !simulation.ended {
            simulation.now += .milliseconds(Int.random(in: 0...12, using: &rng))
            simulation.fireTimerIfDue()
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5 where next <= 200 && !simulation.producerPaused:
                simulation.arrive(Bool.random(using: &rng) ? [next] : [-next])
                next += 1
            case 5..<8:
                simulation.consumerAsks()
            case 8 where next > 200 && !simulation.ended:
                simulation.end()
            default:
                break
            }
            if simulation.failed { break }
        }
        while !simulation.finished && !simulation.failed {
            simulation.now += .milliseconds(10)
            simulation.fireTimerIfDue()
            simulation.consumerAsks()
        }
        #expect(simulation.problems == [])
        #expect(simulation.delivered.flatMap { $0 }.flatMap { $0 }.map(abs) == Array(1...200))
    }
}

/// Drives a ``CoalescingStateMachine`` like the I/O layer does, recording what goes out and
/// checking the invariants as it goes.
struct CoalescingSimulation {
    var machine: CoalescingStateMachineTests.Machine
    var now = Duration.zero
    var consumerWaiting = false
    var timer: Duration?
    var producerPaused = false
    var ended = false
    var finished = false
    var delivered: [[[Int]]] = []
    var deliveryTimes: [Duration] = []
    var problems: [String] = []
    var failed: Bool { !problems.isEmpty }

    init(machine: CoalescingStateMachineTests.Machine) {
        self.machine = machine
    }

    mutating func arrive(_ element: [Int]) {
        let idleFor = deliveryTimes.last.map { $0 + machine.interval <= now } ?? true
        let wasWaiting = consumerWaiting && machine.pendingCount == 0
        switch machine.elementArrived(element, now: now) {
        case .none:
            if wasWaiting && idleFor { problems.append("an arrival to an idle, waiting consumer was held back") }
        case .deliver(let batch):
            guard consumerWaiting else { return problems.append("delivered to nobody") }
            record(batch, flush: false)
        case .armTimer(let deadline, let pause):
            timer = deadline
            producerPaused = pause
        case .pause:
            producerPaused = true
        case .stop:
            problems.append("stop without cancellation")
        }
        if machine.pendingCount > machine.capacity { problems.append("pending above capacity") }
    }

    mutating func consumerAsks() {
        guard !consumerWaiting, !finished else { return }
        switch machine.next(now: now) {
        case .deliver(let batch, let resume):
            record(batch, flush: ended)
            if resume { producerPaused = false }
        case .suspend:
            consumerWaiting = true
        case .suspendUntil(let deadline):
            consumerWaiting = true
            timer = deadline
        case .finish:
            finished = true
        }
    }

    mutating func fireTimerIfDue() {
        guard let deadline = timer, deadline <= now else { return }
        timer = nil
        if case .deliver(let batch, let resume) = machine.timerFired(deadline: deadline, now: now) {
            record(batch, flush: false)
            if resume { producerPaused = false }
        }
    }

    mutating func end() {
        ended = true
        producerPaused = false
        switch machine.sourceEnded(nil, now: now) {
        case .none: break
        case .deliver(let batch): record(batch, flush: true)
        case .finish: finished = true
        }
        if case .finish = machine.sourceEnded(nil, now: now) { problems.append("a second end acted") }
    }

    private mutating func record(_ batch: [[Int]], flush: Bool) {
        if batch.isEmpty { problems.append("empty batch") }
        if batch.count > machine.capacity { problems.append("batch above capacity") }
        if !flush, let last = deliveryTimes.last, now < last + machine.interval {
            problems.append("two batches within an interval at \(now)")
        }
        consumerWaiting = false
        delivered.append(batch)
        deliveryTimes.append(now)
    }
}
