import RealtimeTestSupport
import Testing

@testable import RealtimeLLM

@Suite(.timeLimit(.minutes(1))) struct GenerationGateTests {
    typealias Gate = GenerationGate<String>

    @Test func generationsAreNumberedAndOnlyTheCurrentOneDelivers() {
        var gate = Gate(capacity: 4)
        #expect(gate.begin().generation == 1)
        guard case .enqueued = gate.offer("a1", generation: 1) else { Issue.record("expected enqueued"); return }
        #expect(gate.begin().generation == 2)
        guard case .rejected = gate.offer("a2", generation: 1) else { Issue.record("an old generation was accepted"); return }
        guard case .enqueued = gate.offer("b1", generation: 2) else { Issue.record("expected enqueued"); return }
        guard case .deliver(let generation, let payload, _) = gate.next() else { Issue.record("expected deliver"); return }
        #expect(generation == 2)
        #expect(payload == "b1")
    }

    @Test func beginDiscardsWhatTheOldGenerationQueued() {
        var gate = Gate(capacity: 4)
        _ = gate.begin()
        _ = gate.offer("a1", generation: 1)
        _ = gate.offer("a2", generation: 1)
        let action = gate.begin()
        #expect(action.discarded == 2)
        #expect(gate.queuedCount == 0)
        guard case .suspend = gate.next() else { Issue.record("an old payload was delivered"); return }
        guard case .deliver(2, "b1") = gate.offer("b1", generation: 2) else { Issue.record("expected direct delivery"); return }
    }

    @Test func aFullQueueMakesTheProducerWaitAndSupersedingReleasesIt() {
        var gate = Gate(capacity: 1)
        _ = gate.begin()
        _ = gate.offer("a1", generation: 1)
        guard case .wait = gate.offer("a2", generation: 1) else { Issue.record("expected wait"); return }
        #expect(gate.isProducerWaiting)
        guard case .deliver(_, "a1", let resume) = gate.next() else { Issue.record("expected deliver"); return }
        #expect(resume)
        guard case .enqueued = gate.offer("a2", generation: 1) else { Issue.record("expected enqueued"); return }
        guard case .wait = gate.offer("a3", generation: 1) else { Issue.record("expected wait"); return }
        let action = gate.begin()
        #expect(action.resumeProducer)
        #expect(action.discarded == 1)
        guard case .rejected = gate.offer("a3", generation: 1) else { Issue.record("expected rejected"); return }
    }

    @Test func cancelStopsTheCurrentGenerationOnly() {
        var gate = Gate(capacity: 2)
        _ = gate.begin()
        _ = gate.offer("a1", generation: 1)
        #expect(gate.cancel().discarded == 1)
        #expect(!gate.isActive)
        guard case .rejected = gate.offer("a2", generation: 1) else { Issue.record("expected rejected"); return }
        #expect(gate.begin().generation == 2)
        guard case .enqueued = gate.offer("b1", generation: 2) else { Issue.record("expected enqueued"); return }
    }

    @Test func closeEndsTheConsumerAndRejectsEverything() {
        var gate = Gate(capacity: 2)
        _ = gate.begin()
        guard case .suspend = gate.next() else { Issue.record("expected suspend"); return }
        let action = gate.close()
        #expect(action.finishConsumer)
        guard case .rejected = gate.offer("x", generation: 1) else { Issue.record("expected rejected"); return }
        guard case .finish = gate.next() else { Issue.record("expected finish"); return }
        #expect(!gate.close().finishConsumer)
    }

    /// Seeded random interleavings of begins, cancels, offers by every generation so far and
    /// takes: the consumer only ever receives payloads of the generation current at the time,
    /// in the order they were offered, and the queue never exceeds its capacity.
    @Test(arguments: 1...30) func randomInterleavingsDeliverOnlyTheCurrentGenerationInOrder(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var gate = GenerationGate<(generation: Int, serial: Int)>(capacity: Int.random(in: 1...3, using: &rng))
        var waitingProducer: Int?
        var consumerWaiting = false
        var lastSerial: [Int: Int] = [:]
        var serial = 0
        var problems: [String] = []
        func received(_ generation: Int, _ payload: (generation: Int, serial: Int)) {
            if generation != gate.current || payload.generation != generation { problems.append("stale payload") }
            if let last = lastSerial[generation], payload.serial <= last { problems.append("reordered") }
            lastSerial[generation] = payload.serial
        }
        for _ in 0..<400 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0:
                if gate.begin().resumeProducer { waitingProducer = nil }
            case 1:
                if gate.cancel().resumeProducer { waitingProducer = nil }
            case 2..<6 where gate.current > 0:
                let generation = Int.random(in: max(1, gate.current - 1)...gate.current, using: &rng)
                if waitingProducer == generation { break }
                serial += 1
                switch gate.offer((generation, serial), generation: generation) {
                case .deliver(let g, let p):
                    if !consumerWaiting { problems.append("delivered to nobody") }
                    consumerWaiting = false
                    received(g, p)
                case .wait: waitingProducer = generation
                case .enqueued, .rejected: break
                }
            default:
                guard !consumerWaiting else { break }
                switch gate.next() {
                case .deliver(let g, let p, let resume):
                    received(g, p)
                    if resume { waitingProducer = nil }
                case .suspend: consumerWaiting = true
                case .finish: problems.append("finished while open")
                }
            }
            if gate.queuedCount > gate.capacity { problems.append("queue above capacity") }
            if problems.count > 0 { break }
        }
        #expect(problems == [])
    }
}
