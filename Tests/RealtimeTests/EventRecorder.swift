import Realtime
import Testing

/// Consumes a client's events in a task (a prompt consumer) and records them; tests wait for
/// what it recorded.
final class EventRecorder: Sendable {
    private let log = Observed<(events: [ClientEvent], finished: Bool)>(([], false))
    private let task = LockedValue<Task<Void, Never>?>(nil)

    init(_ client: RealtimeClient) {
        let t = Task { [log] in
            for await e in client.events {
                log.update { $0.events.append(e) }
            }
            log.update { $0.finished = true }
        }
        task.withLock { $0 = t }
    }

    var events: [ClientEvent] { log.value.events }
    var finished: Bool { log.value.finished }

    func cancel() { task.withLock { $0?.cancel() } }

    /// Waits until at least `n` events were recorded; returns them.
    @discardableResult
    func waitFor(_ n: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> [ClientEvent] {
        await log.wait("\(n) events (have \(events.count): \(summary))", sourceLocation: sourceLocation) {
            $0.events.count >= n
        }
        return events
    }

    /// Waits until an event satisfying `condition` was recorded.
    func waitFor(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @Sendable (ClientEvent) -> Bool
    ) async {
        await log.wait("\(what) (have \(summary))", sourceLocation: sourceLocation) { $0.events.contains(where: condition) }
    }

    func waitUntilFinished(sourceLocation: SourceLocation = #_sourceLocation) async {
        await log.wait("the event stream to finish (have \(summary))", sourceLocation: sourceLocation) { $0.finished }
    }

    /// A compact description for failure messages: `open(1) event(a) error(network,retry) closed(reconnect)`.
    var summary: String { events.map(\.short).joined(separator: " ") }
}

extension ClientEvent {
    var short: String {
        switch self {
        case .open(let i): return "open(\(i.attempt))"
        case .event(let m): return "event(\(m.text ?? "?"))"
        case .error(let e): return "error(\(e.error.code),\(e.willRetry ? "retry" : "stop"))"
        case .closed(let c): return "closed(\(c.willReconnect ? "reconnect" : "final"))"
        }
    }

    var errorEvent: ErrorEvent? {
        if case .error(let e) = self { return e }
        return nil
    }

    var closeEvent: CloseEvent? {
        if case .closed(let c) = self { return c }
        return nil
    }
}

extension Array where Element == ClientEvent {
    /// The event at `index`, or nil when fewer arrived (a timed-out wait must fail the test,
    /// not crash the whole test process with an index out of range).
    func at(_ index: Int) -> ClientEvent? { indices.contains(index) ? self[index] : nil }
}
