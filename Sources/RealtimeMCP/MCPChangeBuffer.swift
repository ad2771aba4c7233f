import RealtimeCore

/// What ``MCPClient/listen(_:)`` holds for a reader that is behind: each change once.
///
/// Every change is a level trigger ("read it again"), so a change already waiting says all a
/// second one would: it is not queued again (counted in ``coalesced``). The buffer is thus
/// bounded by the distinct changes a filter admits (the three lists, its resource URIs, and
/// the acknowledgements), whatever a server floods, and nothing a reader needs is dropped.
/// A pure state machine; ``MCPChangeQueue`` runs it under a lock.
struct MCPChangeBuffer {
    enum YieldAction: Equatable {
        /// Hand the change to the reader that waits.
        case resume(MCPChange)
        /// Kept (or already waiting): nothing to do.
        case none
    }

    enum NextAction {
        case change(MCPChange)
        /// The sequence is over (`failure` nil: cleanly).
        case finished(failure: (any Error)?)
        /// Nothing yet: wait.
        case wait
    }

    private var pending: [MCPChange] = []
    private var waiting: Set<MCPChange> = []
    private var head = 0
    private var readerWaits = false
    private var finished: Finished?
    private struct Finished { let failure: (any Error)? }
    private(set) var coalesced = 0

    mutating func yield(_ change: MCPChange) -> YieldAction {
        guard finished == nil else { return .none }
        if readerWaits {
            readerWaits = false
            return .resume(change)
        }
        guard waiting.insert(change).inserted else {
            coalesced += 1
            return .none
        }
        pending.append(change)
        return .none
    }

    /// The reader asks for the next change.
    mutating func next() -> NextAction {
        if head < pending.count {
            let change = pending[head]
            head += 1
            waiting.remove(change)
            if head == pending.count {
                pending.removeAll(keepingCapacity: true)
                head = 0
            }
            return .change(change)
        }
        if let finished { return .finished(failure: finished.failure) }
        readerWaits = true
        return .wait
    }

    /// The producer is done; a waiting reader is told at once (true).
    mutating func finish(_ failure: (any Error)?) -> Bool {
        guard finished == nil else { return false }
        finished = Finished(failure: failure)
        defer { readerWaits = false }
        return readerWaits
    }

    /// The reader stopped waiting (its task was cancelled).
    mutating func readerLeft() -> Bool {
        defer { readerWaits = false }
        return readerWaits
    }
}

/// ``MCPChangeBuffer`` under a lock, with the one reader's continuation.
final class MCPChangeQueue: Sendable {
    init() {}

    private struct State {
        var buffer = MCPChangeBuffer()
        var reader: CheckedContinuation<MCPChange?, any Error>?
    }

    private let state = LockedValue(State())

    func yield(_ change: MCPChange) {
        let reader: CheckedContinuation<MCPChange?, any Error>? = state.withLock { s in
            guard case .resume = s.buffer.yield(change) else { return nil }
            defer { s.reader = nil }
            return s.reader
        }
        reader?.resume(returning: change)
    }

    func finish(throwing failure: (any Error)? = nil) {
        let reader: CheckedContinuation<MCPChange?, any Error>? = state.withLock { s in
            guard s.buffer.finish(failure) else { return nil }
            defer { s.reader = nil }
            return s.reader
        }
        guard let reader else { return }
        if let failure { reader.resume(throwing: failure) } else { reader.resume(returning: nil) }
    }

    /// How many changes were not queued again because the same one was waiting.
    var coalesced: Int { state.withLock { $0.buffer.coalesced } }

    /// The next change; nil at the end or when the reading task is cancelled.
    func next() async throws -> MCPChange? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MCPChange?, any Error>) in
                let action: MCPChangeBuffer.NextAction = state.withLock { s in
                    let action = s.buffer.next()
                    guard case .wait = action else { return action }
                    // Cancelled before waiting: the cancellation handler found no reader.
                    if Task.isCancelled {
                        _ = s.buffer.readerLeft()
                        return .finished(failure: nil)
                    }
                    s.reader = continuation
                    return action
                }
                switch action {
                case .change(let change): continuation.resume(returning: change)
                case .finished(let failure?): continuation.resume(throwing: failure)
                case .finished(nil): continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            let reader: CheckedContinuation<MCPChange?, any Error>? = state.withLock { s in
                guard s.buffer.readerLeft() else { return nil }
                defer { s.reader = nil }
                return s.reader
            }
            reader?.resume(returning: nil)
        }
    }
}
