import Synchronization

/// The client's lock and everything under it: the state machine, the events waiting to
/// be handed to the consumer's buffer, and what the driver keeps for the machine's effects
/// (the live transport, the timer task, preparation tasks, the network observation, the
/// iterators of ``RealtimeClient/stateChanges``). The shape of swift-async-algorithms'
/// channel storage: a state machine behind a lock, whose actions (resuming continuations,
/// calling transports, the channel or the user's code) run after the lock is released.
///
/// **Emission order.** Events reach the consumer's buffer in the order the machine emitted
/// them, whichever thread produced them (the I/O thread relaying messages, a timer, the
/// network monitor, the app calling `suspend()`): they are queued here in that order, and one
/// thread at a time (the one that finds nobody emitting) moves them into the buffer, outside
/// the lock. The relay's common case, a batch of messages while nobody else emits, goes
/// straight to the buffer.
final class ClientStorage: Sendable {
    /// An emitted event, or (for `RealtimeClient/batches`) a batch of messages, with its
    /// sequence number: a batch takes one per message and carries its last one.
    struct Envelope: Sendable {
        enum Item: Sendable {
            case event(ClientEvent)
            case batch(MessageBatch)
        }

        var item: Item
        var sequence: UInt64

        init(event: ClientEvent, sequence: UInt64) {
            self.item = .event(event)
            self.sequence = sequence
        }

        init(batch: MessageBatch, sequence: UInt64) {
            self.item = .batch(batch)
            self.sequence = sequence
        }

        /// Messages (sequence numbers) this envelope stands for.
        var count: Int {
            if case .batch(let b) = item { return b.count }
            return 1
        }

        /// The id this envelope contributes to the resume cursor, nil when none.
        var resumeID: String? {
            switch item {
            case .event(.event(let m)): return m.id
            case .event: return nil
            case .batch(let b): return b.resumeID
            }
        }

        /// Numbers `envelopes` from `first` on (a batch takes one number per message).
        static func number(_ envelopes: inout [Envelope], from first: UInt64) {
            var next = first
            for i in envelopes.indices {
                next &+= UInt64(envelopes[i].count &- 1)
                envelopes[i].sequence = next
                next &+= 1
            }
        }
    }

    struct State {
        var machine: ClientStateMachine
        /// Emitted events not yet in the consumer's buffer, in emission order. (The outbox is
        /// the other direction: sends queued until a connection is open.)
        var undelivered: [Envelope] = []
        /// The machine finished: end the buffer after the undelivered events.
        var finishPending = false
        /// A thread is moving events into the consumer's buffer.
        var emitting = false
        /// The first iterator started the machine.
        var started = false
        var transport: (attempt: Int, transport: any Transport)?
        var timer: (token: UInt64, task: Task<Void, Never>)?
        /// Preparation tasks in flight (attempt preparation, cursor loading), by id.
        var work: [UInt64: Task<Void, Never>] = [:]
        var nextWork: UInt64 = 0
        var observation: (monitor: any NetworkMonitor, observation: NetworkObservation)?
        /// The state last published, its version, and the iterators waiting for a newer one.
        var published: ClientStateMachine.Snapshot = .idle
        var publishedVersion: UInt64 = 1
        var stateWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextStateIterator: UInt64 = 0
        /// The senders waiting on the outbox.
        var sends = ClientSends()
    }

    let state: LockedValue<State>
    let channel: BoundedChannel<Envelope>
    /// The consumer's side of the resume cursor, under a lock of its own: the consumer takes
    /// it for every event and nothing on the producer side does (a contended lock costs a
    /// futex call), so the relay and the consumer never wait for each other. Never held
    /// together with ``state``: the machine hears of the consumer's progress after it is
    /// released (``ClientStateMachine/consumerProcessed(_:now:)``).
    let consumer: LockedValue<ResumeLedger>
    /// The machine waits for the consumer's progress (``ClientStateMachine/Effects/awaitConsumer``)
    /// until the next attempt starts: the consumer reports it when set. Sequentially
    /// consistent with the consumer lock: the driver sets it, then reads the ledger; the
    /// consumer commits under the lock, then reads it; one of the two sees the other.
    let consumerAwaited = Atomic<Bool>(false)
    /// The first iterator was `RealtimeClient/batches`: messages go to the consumer in
    /// batches. Set once, before the machine starts (so before any transport exists).
    let deliversBatches = Atomic<Bool>(false)

    init(machine: ClientStateMachine, capacity: Int, duplicates: DuplicateTracker? = nil) {
        consumer = LockedValue(ResumeLedger(cursor: machine.consumer.cursor, duplicates: duplicates))
        state = LockedValue(State(machine: machine))
        channel = BoundedChannel(capacity: capacity)
    }

    /// Moves queued events into the consumer's buffer until none is left, then gives up the
    /// emitter's role. Called by the thread that took the role, with what it took.
    /// Returns the buffer's last "keep going" (false: the producer should pause).
    func emit(_ first: inout [Envelope], finish: Bool) -> Bool {
        var mayContinue = true
        var finish = finish
        while true {
            if !first.isEmpty { mayContinue = channel.send(draining: &first) }
            if finish { channel.finish() }
            let more: Bool = state.withLock { s in
                guard !s.undelivered.isEmpty || s.finishPending else {
                    s.emitting = false
                    return false
                }
                swap(&first, &s.undelivered)
                finish = s.finishPending
                s.finishPending = false
                return true
            }
            if !more { return mayContinue }
        }
    }
}

extension ClientStorage.State {
    /// Takes the emitter's role when events are queued and nobody emits; returns what to emit.
    mutating func claimEmission() -> (envelopes: [ClientStorage.Envelope], finish: Bool)? {
        guard !emitting, !undelivered.isEmpty || finishPending else { return nil }
        emitting = true
        defer {
            undelivered = []
            finishPending = false
        }
        return (undelivered, finishPending)
    }
}
