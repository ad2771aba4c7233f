extension RealtimeClient.Configuration {
    /// Throws `invalidConfiguration` for a configuration that cannot work, before any I/O.
    func validate() throws {
        guard eventBufferCapacity >= 1 else {
            throw RealtimeError(.invalidConfiguration, detail: "eventBufferCapacity must be at least 1")
        }
    }

    /// What the state machine needs to know, resolved for a client of `kind`.
    /// - Parameter monitorsNetwork: the URL's host needs a network interface (not loopback).
    func machineConfiguration(kind: TransportKind, monitorsNetwork: Bool) -> ClientStateMachine.Configuration {
        ClientStateMachine.Configuration(
            backoff: backoff, reconnect: reconnect, requestIsRepeatable: resolvedRequestIsRepeatable,
            waitsForConsumer: kind == .sse || messageID != nil,
            monitorsNetwork: networkMonitor != nil && monitorsNetwork,
            refreshesCredentials: headersProvider != nil, sharesRetryBudget: retryBudget != nil,
            loadsCursor: lastEventID == nil && cursorStore != nil, cursor: lastEventID,
            hasTerminator: false, pathChangeProbeTimeout: pathChangeProbeTimeout)
    }
}
