#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RealtimeClient {
    /// What ``waitForNetwork(attempt:announced:)`` ended with.
    enum NetworkWait {
        case ready, suspended, closed
    }

    /// Whether reaching `url` needs a network interface at all: loopback hosts never do, so
    /// a monitor (which ignores loopback interfaces) must not hold them back.
    static func needsNetwork(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return true }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return !(bare == "localhost" || bare.hasSuffix(".localhost") || bare == "::1" || bare.hasPrefix("127."))
    }

    /// Registers with the configured monitor for the life of the reconnect loop; returns the
    /// cancellation to run when the loop ends (nil when no monitor applies).
    func startObservingNetwork() -> (@Sendable () -> Void)? {
        guard let monitor = configuration.networkMonitor, Self.needsNetwork(url) else { return nil }
        let observation = monitor.observe { [weak self] status in self?.networkChanged(status) }
        networkChanged(monitor.currentStatus)
        return { monitor.cancel(observation) }
    }

    /// The monitor reported `status`: wake the loop when the network returns, end the live
    /// attempt when it goes away, verify the connection when the path changed under it.
    func networkChanged(_ status: NetworkStatus) {
        enum Action { case none, wake, lost((any Transport)?), verify(any Transport) }
        let action: Action = state.withLock { s in
            let down = !status.isUsable
            let wasDown = s.networkDown
            let pathChanged = status.pathGeneration != s.pathGeneration
            s.networkDown = down
            s.pathGeneration = status.pathGeneration
            guard s.phase == .running || s.phase == .idle else { return .none }
            if wasDown && !down {
                s.resetBackoff = true
                return .wake
            }
            if down && !wasDown {
                // The socket is bound to an interface that no longer has a path; waiting
                // for the idle timeout would only delay the report.
                if s.transport != nil { s.closedForNetwork = true }
                return .lost(s.transport)
            }
            if pathChanged && !down, let t = s.transport { return .verify(t) }
            return .none
        }
        switch action {
        case .none:
            break
        case .wake:
            log(.info, "network is back: connecting at once with a fresh backoff", ["path": status.description])
            wakeup.wake()
        case .lost(let transport):
            log(.notice, "network lost", ["path": status.description])
            // abort, not close: a WebSocket closing handshake over a vanished path could
            // only wait out its close timeout (5 s by default) before the loss is reported.
            transport?.abort()
            wakeup.wake()
        case .verify(let transport):
            log(.info, "network path changed: verifying the connection", ["path": status.description])
            // A socket bound to a vanished address hears nothing more: the transport ends
            // the attempt after the probe timeout instead of a long idle timeout.
            transport.verifyConnection(within: configuration.pathChangeProbeTimeout)
        }
    }

    /// Before an attempt: while the monitor says the network is down, announce it once and
    /// wait (no attempt, no backoff spent) until it returns, ``suspend()`` or ``close()``.
    func waitForNetwork(attempt: Int, announced: inout Bool) async -> NetworkWait {
        while !Task.isCancelled {
            let generation = wakeup.generation
            let (down, suspended) = state.withLock { ($0.networkDown, $0.suspended) }
            if suspended { return .suspended }
            if !down {
                announced = false
                return .ready
            }
            if !announced {
                announced = true
                state.withLock { $0.statistics.networkWaits += 1 }
                log(.notice, "waiting for the network", ["attempt": "\(attempt)"])
                let event = ErrorEvent(
                    error: RealtimeError(.unreachable, detail: "waiting for the network"),
                    willRetry: true, retryIn: nil, attempt: attempt)
                guard await forward(.error(event)) else { return .closed }
                continue
            }
            await wakeup.wait(since: generation)
        }
        return .closed
    }
}
