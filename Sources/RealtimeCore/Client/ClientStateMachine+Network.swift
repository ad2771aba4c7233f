extension ClientStateMachine {
    /// The network monitor reported `status`. Loss ends the live attempt at once and stops
    /// every attempt until the network returns (one `unreachable` error per outage, no attempt
    /// spent); the return connects at once with a fresh backoff; a path change under a live
    /// connection makes it prove it is alive.
    package mutating func networkChanged(_ status: NetworkStatus, now: Duration) -> Effects {
        guard configuration.monitorsNetwork else { return .nothing }
        let down = !status.isUsable
        let wasDown = network.down
        let pathChanged = status.pathGeneration != network.pathGeneration
        network.down = down
        network.pathGeneration = status.pathGeneration
        guard !isTerminal else { return .nothing }
        let path = ["path": status.description]
        if wasDown && !down {
            backoff.reset()
            networkBackoff.reset()
            return Effects.log(ClientLogRecord(.info, "network is back: connecting at once with a fresh backoff", path))
                + advance(now: now)
        }
        if down && !wasDown {
            return Effects.log(ClientLogRecord(.notice, "network lost", path)) + networkLost(now: now)
        }
        if pathChanged && !down, case .attempting(let a) = phase, !a.isPreparing, a.ending == nil {
            // A socket bound to a vanished address hears nothing more: the transport ends the
            // attempt after the probe timeout instead of a long idle timeout.
            let log = ClientLogRecord(.info, "network path changed: verifying the connection", path)
            return Effects.log(log) + .transport(.verify(within: configuration.pathChangeProbeTimeout))
        }
        return .nothing
    }

    private mutating func networkLost(now: Duration) -> Effects {
        switch phase {
        case .attempting(var a):
            guard a.ending == nil else { return .nothing }
            a.ending = .networkLost
            phase = .attempting(a)
            // abort, not close: a WebSocket closing handshake over a vanished path could only
            // wait out its close timeout before the loss is reported.
            return a.isPreparing ? .nothing : .transport(.abort)
        case .waiting:
            return advance(now: now)
        default:
            return .nothing
        }
    }
}
