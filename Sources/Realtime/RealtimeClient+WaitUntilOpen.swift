extension RealtimeClient {
    /// Waits until a connection is open and ready (past its on-open hook, the application's
    /// handshake) and returns what it negotiated (at once when one is open now). Any number of tasks may wait. It does not start the client: something must
    /// iterate ``events`` (or `consume(_:)`) for a connection to be made.
    ///
    /// - Parameter timeout: how long to wait, on the client's clock; nil (default) waits as
    ///   long as the client runs.
    /// - Throws: ``RealtimeError`` `openTimeout` when no connection opened within `timeout`;
    ///   the error that stopped the client (or `cancelled` after ``close()``, `notConnected`
    ///   after an orderly end) when it is done; `cancelled` when the waiting task is cancelled.
    @discardableResult
    public func waitUntilOpen(timeout: Duration? = nil) async throws -> ConnectionInfo {
        if case .open(let info) = state { return info }
        let deadline = timeout.map { clock.now() + $0 }
        return try await withThrowingTaskGroup(of: ConnectionInfo.self) { group in
            group.addTask { try await self.nextOpen() }
            if let deadline, let timeout {
                group.addTask { [clock] in
                    try await clock.sleep(until: deadline)
                    throw RealtimeError(.openTimeout, detail: "no connection opened within \(timeout.millisecondsDescription)")
                }
            }
            defer { group.cancelAll() }
            do {
                guard let info = try await group.next() else { throw RealtimeError.cancelled }
                return info
            } catch is CancellationError {
                throw RealtimeError.cancelled
            }
        }
    }

    /// The first open state from now on, or the reason the client ended.
    private func nextOpen() async throws -> ConnectionInfo {
        for await state in stateChanges {
            switch state {
            case .open(let info):
                return info
            case .closed(let reason):
                throw reason ?? RealtimeError(.notConnected, detail: "the client stopped")
            default:
                continue
            }
        }
        throw RealtimeError.cancelled
    }
}
