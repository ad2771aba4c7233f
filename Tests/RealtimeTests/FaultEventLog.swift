import Realtime

/// Consumes a client's events in a task (a prompt consumer) and records each with the time it
/// arrived, for the fault tests' measurements. Message ids (SSE ids, or WebSocket ids read by
/// `Configuration.messageID`) are collected as integers. The consumer reads until the client's
/// stream ends: a fault that strikes after the last message (a loaded machine can let the
/// server finish before the test cuts it) is still seen.
final class FaultEventLog: Sendable {
    struct Entry: Sendable {
        var event: ClientEvent
        var at: ContinuousClock.Instant
    }

    private let state = LockedValue<[Entry]>([])
    private let task = LockedValue<Task<Void, Never>?>(nil)

    init(_ client: RealtimeClient) {
        let t = Task { [self] in
            for await event in client.events {
                self.state.withLock { $0.append(Entry(event: event, at: .now)) }
            }
        }
        task.withLock { $0 = t }
    }

    deinit { task.withLock { $0?.cancel() } }

    var entries: [Entry] { state.withLock { $0 } }

    /// The ids of the messages received, in order.
    var ids: [Int] {
        state.withLock { $0.compactMap { e in if case .event(let m) = e.event { m.id.flatMap(Int.init) } else { nil } } }
    }

    var lastID: Int? { ids.last }

    /// When each `.open` arrived.
    var opens: [ContinuousClock.Instant] {
        state.withLock { $0.compactMap { e in if case .open = e.event { e.at } else { nil } } }
    }

    /// The `.error` events, with their arrival times.
    var errors: [(event: ErrorEvent, at: ContinuousClock.Instant)] {
        state.withLock { $0.compactMap { e in e.event.errorEvent.map { ($0, e.at) } } }
    }

    /// The `.error` and `.closed` events (how the client noticed each end), in order.
    var ends: [Entry] {
        state.withLock { entries in
            entries.filter { e in
                switch e.event {
                case .error, .closed: true
                case .open, .event: false
                }
            }
        }
    }

    /// The first `.error` or `.closed` that arrived after `instant` (how the client noticed a
    /// fault), with its arrival time.
    func firstEnd(after instant: ContinuousClock.Instant) -> Entry? {
        state.withLock { entries in
            entries.first { e in
                guard e.at > instant else { return false }
                switch e.event {
                case .error, .closed: return true
                case .open, .event: return false
                }
            }
        }
    }

    /// The arrival of the first message after `instant` (a resumed stream's first delivery).
    func firstMessage(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        state.withLock { $0.first { e in if case .event = e.event { e.at > instant } else { false } }?.at }
    }

    /// The arrival of the last message before `instant` (when a silence began).
    func lastMessage(before instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        state.withLock { $0.last { e in if case .event = e.event { e.at < instant } else { false } }?.at }
    }

    /// What arrived besides messages (opens, errors, closes) and the ids, for failure messages.
    var summary: String {
        let other = state.withLock { entries in
            entries.compactMap { e -> String? in
                switch e.event {
                case .event: nil
                case .error(let error): "error(\(error.error), \(error.willRetry ? "retry" : "stop"))"
                default: e.event.short
                }
            }
        }
        let ids = self.ids
        return other.joined(separator: " ") + "; \(ids.count) messages, ids \(ids.first ?? 0)…\(ids.last ?? 0)"
    }
}
