import RealtimeCore
import RealtimeTestSupport
import Testing

/// The bounded buffer as a pure value (the client's buffer and `BoundedChannel`'s): its
/// bound, its order, its pause and release of the producer, its end, and its waiter (an `Int`
/// stands for the consumer's continuation).
@Suite(.timeLimit(.minutes(1))) struct BoundedBufferTests {
    typealias Buffer = BoundedBuffer<Int, Int>

    /// The consumer's side as the client runs it: takes everything buffered into its hand,
    /// serves from it, and reports what it holds while a producer is paused.
    struct Consumer {
        var hand: [Int] = []  // newest first
        var resumes = 0

        mutating func serve(_ buffer: inout Buffer) -> Int? {
            if let e = hand.popLast() {
                if buffer.paused, buffer.report(held: hand.count) { resumes += 1 }
                return e
            }
            let (take, resume) = buffer.take(into: &hand)
            if resume { resumes += 1 }
            guard case .elements = take else { return nil }
            hand.reverse()
            return hand.removeLast()
        }
    }

    @Test func pushedBatchesComeOutInOrder() {
        var b = Buffer(capacity: 100)
        var first = [1, 2, 3]
        var second = [4, 5]
        #expect(b.push(&first) == nil)
        #expect(first.isEmpty, "the batch moved into the buffer")
        #expect(b.push(6) == nil)
        #expect(b.push(&second) == nil)
        #expect(second.isEmpty)
        var c = Consumer()
        var out: [Int] = []
        while let e = c.serve(&b) { out.append(e) }
        #expect(out == [1, 2, 3, 6, 4, 5])
        #expect(b.count == 0)
    }

    @Test func fullBufferPausesTheProducerAndReleasesItOnceAtHalf() {
        var b = Buffer(capacity: 8)
        var batch = Array(0..<5)
        _ = b.push(&batch)
        let goes = b.producerMayContinue()
        #expect(goes, "5 of 8")
        batch = Array(5..<9)
        _ = b.push(&batch)
        let pauses = !b.producerMayContinue()
        #expect(pauses, "9 of 8: pause")
        #expect(b.count == 9, "what the producer had in hand still went in: nothing dropped")
        var c = Consumer()
        var out: [Int] = []
        // The consumer's hand still counts: no release until 4 (8 / 2) are left.
        for _ in 0..<4 {
            out.append(c.serve(&b)!)
            #expect(c.resumes == 0)
        }
        #expect(b.count == 5)
        out.append(c.serve(&b)!)
        #expect(c.resumes == 1, "released when the count dropped to half the capacity")
        #expect(b.count == 4)
        while let e = c.serve(&b) { out.append(e) }
        #expect(c.resumes == 1, "released exactly once per pause")
        #expect(out == Array(0..<9))
    }

    @Test func emptyBufferReleasesAPausedProducer() {
        var b = Buffer(capacity: 1)
        _ = b.push(1)
        let pauses = !b.producerMayContinue()
        #expect(pauses)
        var hand: [Int] = []
        let (take, resume) = b.take(into: &hand)
        #expect(take == .elements(1))
        #expect(resume, "capacity 1: the count is 0 once the only element is served")
        #expect(!b.paused)
        hand = []
        #expect(b.take(into: &hand) == (.empty, false), "nothing paused any more")
    }

    @Test func waiterIsKeptWhenEmptyAndReturnedByThePush() {
        var b = Buffer(capacity: 4)
        #expect(b.wait(7) == nil, "nothing there: the consumer waits")
        #expect(b.waiter == 7)
        #expect(b.push(1) == 7, "the push wakes the waiter")
        #expect(b.push(2) == nil, "once")
        #expect(b.wait(8) == 8, "something is buffered: no wait")
        #expect(b.waiter == nil)
    }

    @Test func finishDeliversWhatIsBufferedThenTheEnd() {
        var b = Buffer(capacity: 4)
        var batch = [1, 2]
        _ = b.push(&batch)
        #expect(b.finish() == nil)
        #expect(b.push(3) == nil)
        var late = [4]
        _ = b.push(&late)
        #expect(late == [4], "pushed after the end: left with the caller, not buffered")
        var c = Consumer()
        #expect(c.serve(&b) == 1)
        #expect(c.serve(&b) == 2)
        var hand: [Int] = []
        #expect(b.take(into: &hand).take == .end)
        #expect(b.wait(9) == 9, "the end is there: no wait")
    }

    @Test func finishWakesAWaitingConsumer() {
        var b = Buffer(capacity: 4)
        #expect(b.wait(3) == nil)
        #expect(b.finish() == 3)
        #expect(b.finish() == nil, "idempotent")
        var hand: [Int] = []
        #expect(b.take(into: &hand).take == .end)
    }

    @Test func terminateDropsTheBufferAndWakesTheWaiter() {
        var b = Buffer(capacity: 2)
        #expect(b.wait(5) == nil)
        let cancelled = b.terminate()
        #expect(cancelled.waiter == 5, "a cancelled wait is resumed")
        #expect(cancelled.dropped.isEmpty)
        var full = Buffer(capacity: 2)
        var batch = [1, 2, 3]
        _ = full.push(&batch)
        let pauses = !full.producerMayContinue()
        #expect(pauses)
        let ended = full.terminate()
        #expect(ended.waiter == nil)
        #expect(ended.dropped == [1, 2, 3])
        #expect(full.count == 0)
        #expect(!full.paused, "a terminated buffer releases no producer")
        let released = full.report(held: 0)
        #expect(!released)
        #expect(full.push(4) == nil)
        var hand: [Int] = []
        #expect(full.take(into: &hand) == (.end, false))
        #expect(hand.isEmpty)
        #expect(full.terminate().dropped.isEmpty, "idempotent")
    }

    /// Seeded random producer, consumer and end steps against a plain queue: every element
    /// pushed while open comes out once, in order, unless terminated; the count never passes
    /// the capacity by more than one batch; each pause is released exactly once and never
    /// lost (a consumer that runs dry releases it); a waiter is woken exactly once.
    @Test(arguments: [1, 2, 3, 5, 8, 13, 21, 34] as [UInt64])
    func randomSequencesMatchAQueue(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let capacity = Int.random(in: 1...10, using: &rng)
        var b = Buffer(capacity: capacity)
        var c = Consumer()
        var model: [Int] = []  // pushed and not yet served, oldest first
        var next = 0
        var pauses = 0
        var producerPaused = false
        var waiting: Int?
        for step in 0..<2_000 {
            let roll = Int.random(in: 0..<100, using: &rng)
            let released = c.resumes
            if roll < 45 {
                // A paused transport delivers nothing until it is released.
                guard !producerPaused else { continue }
                let n = Int.random(in: 0...4, using: &rng)
                let open = b.phase == .open
                var batch = Array(next..<next + n)
                let woke = n == 1 && roll.isMultiple(of: 2) ? b.push(batch.removeFirst()) : b.push(&batch)
                if open, n > 0 {
                    #expect(woke == waiting)
                    waiting = nil
                    model += next..<next + n
                } else {
                    #expect(woke == nil)
                }
                next += n
                if !b.producerMayContinue() {
                    pauses += 1
                    producerPaused = true
                }
                #expect(b.count <= capacity - 1 + 4, "bounded by the capacity plus one batch")
            } else if roll < 90 {
                // A waiting consumer is suspended until woken.
                guard waiting == nil else { continue }
                if let served = c.serve(&b) {
                    #expect(served == model.first)
                    model.removeFirst()
                } else {
                    #expect(model.isEmpty)
                    if b.wait(step) == nil { waiting = step }
                }
            } else if roll < 97 {
                if b.phase == .open {
                    #expect(b.finish() == waiting)
                    waiting = nil
                }
            } else {
                let r = b.terminate()
                #expect(r.waiter == waiting)
                waiting = nil
                c.hand = []
                model = []
                producerPaused = false
            }
            if c.resumes > released {
                #expect(c.resumes == released + 1 && producerPaused, "one release per pause")
                producerPaused = false
            }
            #expect(c.resumes <= pauses)
            #expect(!(producerPaused && waiting != nil), "a consumer never waits while the producer is paused")
            #expect(b.paused == producerPaused || b.phase == .terminated, "a pause lasts until its release")
        }
        // A consumer that runs dry releases a paused producer.
        guard waiting == nil else { return }
        while let served = c.serve(&b) {
            #expect(served == model.first)
            model.removeFirst()
        }
        #expect(model.isEmpty)
        #expect(!b.paused)
    }
}
