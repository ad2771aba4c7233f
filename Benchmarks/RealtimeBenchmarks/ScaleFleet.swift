import Foundation
import Realtime
import Synchronization

/// N ``RealtimeClient``s in this process, each with the consumer an application would give
/// it (a task iterating `client.events`, reading every message's text), counting what they
/// see. The benchmark thread drives it synchronously: ``open(count:window:)`` blocks until
/// every client has opened (or failed), ``closeAll()`` until every consumer has finished.
final class ScaleFleet: Sendable {
    let url: URL
    let configuration: RealtimeClient.Configuration
    /// Consumers that saw `.open` / an error before any open / the end of their events.
    let opened = Atomic<Int>(0)
    let failedBeforeOpen = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    /// Messages received and their payload bytes.
    let events = Atomic<Int>(0)
    let bytes = Atomic<Int>(0)
    /// Errors and closes while open (a reconnect the benchmark did not ask for).
    let errorsAfterOpen = Atomic<Int>(0)
    /// Set by ``closeAll(timeout:)``: the ends that follow are expected.
    private let closing = Atomic<Bool>(false)
    /// The first error seen before an open, for the failure message.
    let firstFailure = LockedValue<String?>(nil)
    private let clients = LockedValue<[RealtimeClient]>([])
    /// Signalled once per client that opened or failed before opening.
    private let settled = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init(url: URL, configuration: RealtimeClient.Configuration) {
        self.url = url
        self.configuration = configuration
    }

    /// Creates `count` clients, at most `window` of them connecting at once (a listen queue
    /// holds a few thousand: beyond it the server's kernel drops SYNs and the client retries
    /// a second later, which would measure the server). Returns the seconds until every
    /// client opened, or nil when some did not within `timeout`.
    func open(count: Int, window: Int, timeout: Double = 60) throws -> Double? {
        let start = DispatchTime.now().uptimeNanoseconds
        var started = 0
        var settledCount = 0
        while started < count {
            while started - settledCount >= window {
                guard settled.wait(timeout: .now() + timeout) == .success else { return nil }
                settledCount += 1
            }
            try launch()
            started += 1
        }
        while settledCount < count {
            guard settled.wait(timeout: .now() + timeout) == .success else { return nil }
            settledCount += 1
        }
        guard failedBeforeOpen.load(ordering: .relaxed) == 0 else { return nil }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    private func launch() throws {
        let client = try RealtimeClient(url: url, configuration: configuration)
        clients.withLock { $0.append(client) }
        Task.detached { [self] in await consume(client) }
    }

    private func consume(_ client: RealtimeClient) async {
        var isOpen = false
        for await event in client.events {
            switch event {
            case .open:
                if !isOpen {
                    isOpen = true
                    opened.add(1, ordering: .relaxed)
                    settled.signal()
                }
            case .event(let message):
                events.add(1, ordering: .relaxed)
                bytes.add(message.text?.utf8.count ?? 0, ordering: .relaxed)
            case .error, .closed:
                if case .error(let e) = event { firstFailure.withLock { $0 = $0 ?? "\(e.error)" } }
                if isOpen {
                    if !closing.load(ordering: .relaxed) { errorsAfterOpen.add(1, ordering: .relaxed) }
                } else {
                    isOpen = true  // counted once, as a failure
                    failedBeforeOpen.add(1, ordering: .relaxed)
                    settled.signal()
                }
            }
        }
        finished.add(1, ordering: .relaxed)
        ended.signal()
    }

    /// Closes every client and waits until every consumer has seen the end of its events;
    /// then drops the clients. Returns the seconds it took, nil after `timeout`.
    func closeAll(timeout: Double = 60) -> Double? {
        let start = DispatchTime.now().uptimeNanoseconds
        closing.store(true, ordering: .relaxed)
        let all = clients.withLock { list in
            defer { list = [] }
            return list
        }
        for client in all { client.close() }
        for _ in all {
            guard ended.wait(timeout: .now() + timeout) == .success else { return nil }
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
