@_spi(Transport) import RealtimeCore
extension RealtimeClient {
    /// What one batch of an attempt's transport events carries, sorted out on the producer's
    /// thread before the lock is taken.
    struct RelayBatch {
        var messages: [ClientStorage.Envelope] = []
        /// Messages in `messages` (a batch envelope stands for several).
        var count = 0
        var bytes = 0
        var opened: ConnectionInfo?
        var hints: [Duration] = []
        var end: TransportEnd?
        /// A message matched the configured terminator (what follows it is dropped; so is the
        /// terminator itself unless it is delivered).
        var terminated = false
        /// Messages waiting to be grouped into one batch (batch delivery only).
        var group: [Message] = []
        /// The resume cursor of the last message (tracked for a resume plan only).
        var cursor: String?

        var isMessagesOnly: Bool { opened == nil && hints.isEmpty && end == nil && !terminated }

        /// Adds a single message: an event of its own, or (`grouping`) to the open group.
        mutating func add(_ message: consuming Message, grouping: Bool) {
            bytes &+= message.payloadByteCount
            count &+= 1
            guard grouping else {
                messages.append(ClientStorage.Envelope(event: .event(message), sequence: 0))
                return
            }
            group.append(message)
            if group.count >= RealtimeClient.messagesPerGroupedBatch { closeGroup() }
        }

        /// Adds a transport's batch as it is.
        mutating func add(_ batch: MessageBatch) {
            closeGroup()
            bytes &+= batch.payloadByteCount
            count &+= batch.count
            messages.append(ClientStorage.Envelope(batch: batch, sequence: 0))
        }

        mutating func closeGroup() {
            guard !group.isEmpty else { return }
            messages.append(ClientStorage.Envelope(batch: MessageBatch(group), sequence: 0))
            group = []
        }
    }

    /// What the relay does to each message before it is buffered: the resume cursor read from
    /// its data (``Configuration/messageID``, ``ResumePlan/cursor``, the latter given the
    /// cursor before it), and the terminator's check.
    struct MessageLabels {
        let messageID: (@Sendable (Message) -> String?)?
        let planCursor: (@Sendable (Message, String?) -> String?)?
        let terminator: StreamTerminator?
        let isWebSocket: Bool
        /// The client has a resume plan: the machine is told the last cursor received.
        let tracksCursor: Bool
        /// The resume plan's cursor after the last message labelled.
        var running: String?

        /// Whether each message must be looked at (a packed batch cannot go as it is).
        var needsEachMessage: Bool { terminator != nil || messageID != nil || planCursor != nil }

        /// Labels `message` and adds it to `batch`, unless it is the terminator (which ends
        /// the batch, and is added only when it is delivered).
        mutating func relay(_ message: consuming Message, into batch: inout RelayBatch, grouping: Bool) {
            var message = message
            guard !message.isComment else {
                // A comment has no id, moves no cursor and is never the terminator.
                batch.add(message, grouping: grouping)
                return
            }
            if let planCursor {
                if let next = planCursor(message, running) { running = next }
                message.id = running
            } else if let messageID {
                // On SSE a message without a cursor in its data keeps its `id:` field.
                let id = messageID(message)
                if id != nil || isWebSocket { message.id = id }
            }
            if tracksCursor, let id = message.id { batch.cursor = id }
            if let terminator, terminator.matches(message) {
                batch.terminated = true
                if terminator.delivered { batch.add(message, grouping: grouping) }
                return
            }
            batch.add(message, grouping: grouping)
        }
    }

    /// What an attempt's sink does with a delivery, on the transport's I/O thread: takes every
    /// event out of `events`, moves the messages into the consumer's buffer and the control
    /// events into the state machine. Returns false when the consumer's buffer is full (the
    /// transport pauses reading until the consumer, having served half the buffer, calls
    /// `Transport.resumeDelivery()`). `cursor` holds the resume plan's cursor after the
    /// attempt's last message (see ``MessageLabels``), when the plan reads one; it is not held
    /// while the relay acts (a transport may deliver again from within, say its end on a close).
    func relay(_ events: inout [TransportEvent], attempt: Int, cursor: LockedValue<String?>?) -> Bool {
        var batch = RelayBatch()
        batch.messages.reserveCapacity(events.count)
        let grouping = storage.deliversBatches.load(ordering: .relaxed)
        var labels = MessageLabels(
            messageID: configuration.messageID, planCursor: configuration.resume?.cursor, terminator: storage.terminator,
            isWebSocket: transportKind == .webSocket, tracksCursor: configuration.resume != nil,
            running: cursor?.withLock { $0 })
        // Moved out one by one (oldest first after the reversal), not copied: a copy of a
        // message costs a retain and a release per field, several per event.
        events.reverse()
        while let event = events.popLast() {
            switch consume event {
            case .message(let message):
                guard !batch.terminated else { continue }
                labels.relay(message, into: &batch, grouping: grouping)
            case .messages(let messages):
                guard !batch.terminated, !messages.isEmpty else { continue }
                // A packed batch goes as it is; one of whole messages is regrouped (at most 16).
                if grouping, !labels.needsEachMessage, messages.isPacked {
                    if labels.tracksCursor, let id = messages.resumeID { batch.cursor = id }
                    batch.add(messages)
                } else {
                    for m in messages where !batch.terminated { labels.relay(m.message, into: &batch, grouping: grouping) }
                }
            case .opened(let info):
                batch.opened = info
            case .retryHint(let time):
                batch.hints.append(time)
            case .ended(let end):
                batch.end = end
            }
        }
        if let cursor { cursor.withLock { $0 = labels.running } }
        batch.closeGroup()
        if batch.isMessagesOnly {
            return relayMessages(&batch.messages, count: batch.count, bytes: batch.bytes, cursor: batch.cursor, attempt: attempt)
        }
        return relayControl(&batch, attempt: attempt)
    }

    /// The common case: messages only. Counted by the machine, numbered and moved into the
    /// consumer's buffer under one acquisition of the machine's lock (the buffer takes the
    /// array's storage when it is empty: no copy); the consumer is woken after it.
    private func relayMessages(
        _ envelopes: inout [ClientStorage.Envelope], count: Int, bytes: Int, cursor: String?, attempt: Int
    ) -> Bool {
        guard !envelopes.isEmpty else { return true }
        let (waiter, mayContinue): (CheckedContinuation<Void, Never>?, Bool) = storage.state.withLock { s in
            switch s.machine.messagesArrived(attempt: attempt, count: count, bytes: bytes, cursor: cursor) {
            case .drop:
                return (nil, true)  // the attempt is over
            case .hold:
                return s.handshake.hold(ClientStorage.Envelope.messages(of: envelopes), attempt: attempt)
            case .deliver(let first):
                ClientStorage.Envelope.number(&envelopes, from: first)
                let waiter = s.buffer.push(&envelopes)
                return (waiter, storage.producerMayContinue(&s))
            }
        }
        waiter?.resume()
        return mayContinue
    }

    /// A batch with control events (the open, retry hints, the terminator, the end): every
    /// part goes through the machine under one lock, in order.
    private func relayControl(_ batch: inout RelayBatch, attempt: Int) -> Bool {
        let now = clock.now()
        let work: ClientStorage.Work = storage.state.withLock { s in
            var work = ClientStorage.Work()
            if let info = batch.opened {
                s.absorb(s.machine.transportOpened(attempt: attempt, info: info, now: now), into: &work)
            }
            var held = true
            if !batch.messages.isEmpty {
                switch s.machine.messagesArrived(attempt: attempt, count: batch.count, bytes: batch.bytes, cursor: batch.cursor) {
                case .drop:
                    break
                case .hold:
                    let (waiter, mayContinue) = s.handshake.hold(ClientStorage.Envelope.messages(of: batch.messages), attempt: attempt)
                    work.hookWaiter = waiter
                    held = mayContinue
                case .deliver(let first):
                    ClientStorage.Envelope.number(&batch.messages, from: first)
                    s.wake(s.buffer.push(&batch.messages), &work)
                }
            }
            for hint in batch.hints { s.machine.retryHint(attempt: attempt, hint) }
            if batch.terminated {
                s.absorb(s.machine.terminatorArrived(attempt: attempt, now: now), into: &work)
            }
            if let end = batch.end {
                if s.transport?.attempt == attempt { s.transport = nil }
                if s.handshake.attempt == attempt { work.hookWaiter = s.handshake.end().waiter ?? work.hookWaiter }
                s.absorb(s.machine.transportEnded(attempt: attempt, end: end, now: now), into: &work)
            }
            work.mayContinue = held && storage.producerMayContinue(&s)
            s.conclude(&work)
            return work
        }
        return perform(work)
    }
}

/// The sink an attempt's transport delivers into: the client's relay, tagged with the attempt
/// (so a late delivery from an attempt that is over is recognised and dropped). Weak: a
/// transport that outlives its client delivers into nothing.
final class AttemptSink: TransportSink {
    private weak let client: RealtimeClient?
    private let attempt: Int
    /// The resume plan's cursor after the last message delivered (from the attempt's cursor
    /// on), when the plan reads one from the data; nil otherwise (no lock on the hot path).
    private let cursor: LockedValue<String?>?

    init(client: RealtimeClient, attempt: Int, cursor: String?) {
        self.client = client
        self.attempt = attempt
        self.cursor = client.configuration.resume?.cursor == nil ? nil : LockedValue(cursor)
    }

    func deliver(_ events: inout [TransportEvent]) -> Bool {
        guard let client else {
            events.removeAll(keepingCapacity: true)
            return true
        }
        return client.relay(&events, attempt: attempt, cursor: cursor)
    }
}
