#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import RealtimeCore

extension RealtimeClient {
    /// Whether reaching `url` needs a network interface at all: loopback hosts never do, so
    /// a monitor (which ignores loopback interfaces) must not hold them back.
    static func needsNetwork(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return true }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return !(bare == "localhost" || bare.hasSuffix(".localhost") || bare == "::1" || isLoopbackIPv4(bare))
    }

    /// A dotted-quad literal in 127.0.0.0/8 (a DNS name such as `127.example.com` is not one).
    static func isLoopbackIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { p in p.utf8.allSatisfy { (0x30...0x39).contains($0) } && UInt8(p) != nil }
    }

    /// Observes the configured monitor for the client's life (when one applies) and returns
    /// its current status; the machine stops the observation when the client is done.
    func startObservingNetwork() -> NetworkStatus? {
        // Loopback first: the loop's default monitor is made only for a client that uses it.
        guard Self.needsNetwork(url), let monitor = configuration.networkMonitor else { return nil }
        let observation = monitor.observe { [weak self] status in
            self?.handle { machine, now in machine.networkChanged(status, now: now) }
        }
        let keep: Bool = storage.state.withLock { s in
            guard !s.machine.isTerminal else { return false }
            s.observation = (monitor, observation)
            return true
        }
        if !keep { monitor.cancel(observation) }
        return monitor.currentStatus
    }
}
