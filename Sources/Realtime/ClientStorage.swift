import Synchronization
@_spi(Transport) import RealtimeCore

/// The client's lock and everything under it: the state machine, the consumer's buffer, and
/// what the driver keeps for the machine's effects (the live transport, the timer task,
/// preparation tasks, the network observation, the iterators of
/// ``RealtimeClient/stateChanges``). The shape of swift-async-algorithms' channel storage: a
/// state machine behind a lock, whose actions (resuming continuations, calling transports or
/// the user's code) run after the lock is released.
///
/// **Emission order.** Events reach the consumer's buffer in the order the machine emitted
/// them, whichever thread produced them (the I/O thread relaying messages, a timer, the
/// network monitor, the app calling `suspend()`): the buffer is part of the machine's state,
/// and the step that emits an event buffers it under the same lock.
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

        /// The messages of `batch`, whose last message is number `last`, one envelope each.
        static func unbatched(_ batch: MessageBatch, last: UInt64) -> [Envelope] {
            let first = last &- UInt64(batch.count) &+ 1
            return batch.enumerated().map { i, m in Envelope(event: .event(m.message), sequence: first &+ UInt64(i)) }
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
        /// Emitted events on their way to the consumer, in emission order. (The outbox is the
        /// other direction: sends queued until a connection is open.)
        var buffer: BoundedBuffer<Envelope, CheckedContinuation<Void, Never>>
        /// The first iterator started the machine.
        var started = false
        var transport: (attempt: Int, transport: any Transport)?
        var timer: (token: UInt64, timer: ClientTimer)?
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
        /// The messages of a connection in its on-open hook's handshake.
        var handshake: HandshakeInbox
    }

    let state: LockedValue<State>
    /// The consumer's side: the envelopes it took from the buffer and has not served yet, and
    /// the resume cursor's ledger, under a lock of its own that nothing on the producer side
    /// takes (a contended lock costs a futex call), so serving an event takes one uncontended
    /// lock and the relay and the consumer meet only when the consumer's hand runs dry. Lock
    /// order: this one, then ``state`` (a refill), never the other way.
    let consumer: LockedValue<ConsumerSide>
    /// Mirrors the buffer's `paused` (set under ``state``), so the consumer checks without the
    /// machine's lock whether its progress can release the transport.
    let producerPaused = Atomic<Bool>(false)
    /// The machine waits for the consumer's progress (``ClientStateMachine/Effects/awaitConsumer``)
    /// until the next attempt starts: the consumer reports it when set. Sequentially
    /// consistent with the consumer lock: the driver sets it, then reads the ledger; the
    /// consumer commits under the lock, then reads it; one of the two sees the other.
    let consumerAwaited = Atomic<Bool>(false)
    /// The first iterator was `RealtimeClient/batches`: messages go to the consumer in
    /// batches. Set once, before the machine starts (so before any transport exists).
    let deliversBatches = Atomic<Bool>(false)
    /// What ends the stream: the configuration's terminator, or the one an LLM reply's decoder
    /// set before the client started (``RealtimeClient/deltas(format:)``).
    private let chosenTerminator: LockedValue<StreamTerminator?>

    /// The terminator in effect (read once per delivery by the relay).
    var terminator: StreamTerminator? { chosenTerminator.withLock { $0 } }

    init(machine: ClientStateMachine, capacity: Int, terminator: StreamTerminator?, duplicates: DuplicateTracker? = nil) {
        chosenTerminator = LockedValue(terminator)
        let ledger = ResumeLedger(cursor: machine.consumer.cursor, duplicates: duplicates)
        consumer = LockedValue(ConsumerSide(ledger: ledger, capacity: capacity))
        state = LockedValue(
            State(machine: machine, buffer: BoundedBuffer(capacity: capacity), handshake: HandshakeInbox(capacity: capacity)))
    }

    /// Replaces the terminator, before the machine starts (so before any transport exists).
    func setTerminator(_ terminator: StreamTerminator?) {
        chosenTerminator.withLock { $0 = terminator }
        state.withLock { $0.machine.useTerminator(terminator != nil) }
    }

    /// Sets the buffer's capacity (in envelopes), before the machine starts.
    func setCapacity(_ capacity: Int) {
        state.withLock {
            $0.buffer.capacity = capacity
            $0.handshake.capacity = capacity
        }
        consumer.withLock { $0.capacity = capacity }
    }
}

extension ClientStorage {
    /// What the consumer keeps under ``ClientStorage/consumer``.
    struct ConsumerSide {
        var ledger: ResumeLedger
        /// Envelopes taken from the buffer, newest first (so `removeLast` serves the oldest
        /// without moving the others). Still counted in the buffer's bound.
        var hand: [Envelope] = []
        /// The buffer's capacity, to tell without the machine's lock when a report is due.
        var capacity: Int
        /// The buffer said the stream is over (finished and drained, or terminated): final.
        var ended = false
    }
}

extension ClientStorage.Envelope {
    /// The messages of `envelopes`, batches taken apart (for the on-open hook's handshake).
    static func messages(of envelopes: [Self]) -> [Message] {
        var messages: [Message] = []
        for envelope in envelopes {
            switch envelope.item {
            case .event(.event(let m)): messages.append(m)
            case .event: continue
            case .batch(let b): for m in b { messages.append(m.message) }
            }
        }
        return messages
    }
}
