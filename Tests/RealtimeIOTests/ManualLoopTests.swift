import Foundation
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The manual loop's promises: time moves only when the test moves it, timers fire in deadline
/// order (ties in the order armed) seeing their own deadline as now, and a shut-down loop
/// runs what was queued, then keeps nothing.
@Suite(.timeLimit(.minutes(1))) struct ManualLoopTests {
    final class Log: @unchecked Sendable {
        var entries: [String] = []
    }

    /// A reference whose release the test can observe.
    final class Token: Sendable {}

    @Test func timersFireInDeadlineOrderTiesInArmingOrderAtTheirOwnDeadline() {
        let loop = ManualLoop()
        let log = Log()
        let start = loop.now
        for (name, seconds) in [("c", 3), ("a", 1), ("b1", 2), ("b2", 2)] {
            _ = loop.schedule(at: start.advanced(by: .seconds(seconds))) {
                log.entries.append("\(name)@\(start.duration(to: loop.now))")
            }
        }
        loop.advanceTime(by: .milliseconds(1999))
        #expect(log.entries == ["a@1.0 seconds"])
        loop.advanceTime(by: .seconds(2))
        #expect(log.entries == ["a@1.0 seconds", "b1@2.0 seconds", "b2@2.0 seconds", "c@3.0 seconds"])
        #expect(loop.now == start.advanced(by: .milliseconds(3999)))
    }

    @Test func queuedWorkRunsOnlyWhenTheTestRunsTheLoopAndACancelledTimerNever() {
        let loop = ManualLoop()
        let log = Log()
        loop.execute { log.entries.append("task") }
        let timer = loop.schedule(at: loop.now.advanced(by: .seconds(1))) { log.entries.append("timer") }
        #expect(log.entries.isEmpty && loop.pendingTaskCount == 1 && loop.pendingTimerCount == 1)
        loop.run()
        loop.cancel(timer)
        loop.advanceTime(by: .seconds(5))
        #expect(log.entries == ["task"])
        #expect(loop.pendingTimerCount == 0)
    }

    @Test func shutdownRunsWhatIsQueuedThenDropsTimersAndLaterWorkReleasingWhatTheyHeld() {
        let loop = ManualLoop()
        let log = Log()
        weak var heldByTimer: Token?
        weak var heldByLateTask: Token?
        do {
            let token = Token()
            heldByTimer = token
            loop.execute { log.entries.append("queued") }
            _ = loop.schedule(at: loop.now.advanced(by: .seconds(1))) { _ = token; log.entries.append("timer") }
        }
        loop.shutdown()
        #expect(log.entries == ["queued"])
        #expect(loop.pendingTimerCount == 0 && heldByTimer == nil, "the armed timer and what it held are gone")
        do {
            let token = Token()
            heldByLateTask = token
            loop.execute { _ = token; log.entries.append("late") }
            _ = loop.schedule(at: loop.now) { log.entries.append("late timer") }
        }
        #expect(heldByLateTask == nil, "work queued after the shutdown is not kept")
        loop.advanceTime(by: .seconds(10))
        #expect(log.entries == ["queued"])
        #expect(loop.pendingTaskCount == 0 && loop.pendingTimerCount == 0)
    }

    @Test func waitingForTimersReturnsOnceTheyAreArmedOrTheWaiterIsCancelled() async {
        let loop = ManualLoop()
        let armedElsewhere = Task { [loop] in
            await loop.waitForTimers(2)
            return loop.pendingTimerCount
        }
        _ = loop.schedule(at: loop.now.advanced(by: .seconds(1))) {}
        _ = loop.schedule(at: loop.now.advanced(by: .seconds(2))) {}
        #expect(await armedElsewhere.value == 2)
        await loop.waitForTimers(1)  // already armed: at once
        let never = Task { [loop] in await loop.waitForTimers(3) }
        never.cancel()
        await never.value
        #expect(loop.pendingTimerCount == 2)
        loop.shutdown()
    }

    /// A second thread that runs the loop while a work item runs waits for that run to end:
    /// loop work never runs on two threads, and each item sees itself on the loop. (Without
    /// turns, the second thread ran item 2 off the loop while item 1 was still running.)
    @Test func twoThreadsRunningTheLoopTakeTurns() {
        let loop = ManualLoop()
        let log = LockedValue<[String]>([])
        let (secondStarted, secondDone, itemTwoRan) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        loop.execute {
            log.withLock { $0.append("1 on the loop: \(loop.inEventLoop)") }
            Thread {
                secondStarted.signal()
                loop.run()
                secondDone.signal()
            }.start()
            secondStarted.wait()
            // Without turns item 2 runs now, on the other thread; with them it cannot.
            _ = itemTwoRan.wait(timeout: .now() + .milliseconds(200))
            log.withLock { $0.append("1 ends") }
        }
        loop.execute {
            log.withLock { $0.append("2 on the loop: \(loop.inEventLoop)") }
            itemTwoRan.signal()
        }
        loop.run()
        secondDone.wait()
        #expect(log.withLock { $0 } == ["1 on the loop: true", "1 ends", "2 on the loop: true"])
    }
}
