extension RealtimeClient.Configuration {
    /// Throws `invalidConfiguration` for a configuration that cannot work, before any I/O.
    func validate() throws {
        guard eventBufferCapacity >= 1 else {
            throw RealtimeError(.invalidConfiguration, detail: "eventBufferCapacity must be at least 1")
        }
        // A shorter first delay retries a server that fails at once in a tight loop; the
        // floor would raise every delay anyway, so a smaller value is a mistake to report.
        guard backoff.initial >= BackoffPolicy.minimumDelay else {
            throw RealtimeError(.invalidConfiguration, detail: "backoff.initial must be at least 100 ms (BackoffPolicy.minimumDelay)")
        }
        guard duplicates?.isValid ?? true else {
            throw RealtimeError(.invalidConfiguration, detail: "duplicates: the window must hold at least 1 id")
        }
        guard onOpenTimeout > .zero else {
            throw RealtimeError(.invalidConfiguration, detail: "onOpenTimeout must be positive")
        }
        try validateResume()
    }

    private func validateResume() throws {
        guard let resume else { return }
        guard resume.cursor == nil || messageID == nil else {
            throw RealtimeError(.invalidConfiguration, detail: "set messageID or resume.cursor, not both")
        }
        guard resumeURL == nil else {
            throw RealtimeError(.invalidConfiguration, detail: "set resumeURL or resume, not both (the plan's request builds the URL)")
        }
        guard resume.maxResumesWithoutProgress >= 1 else {
            throw RealtimeError(.invalidConfiguration, detail: "resume.maxResumesWithoutProgress must be at least 1")
        }
    }

    /// Whether a monitor is configured (without making the loop's default one).
    var hasNetworkMonitor: Bool {
        if case .none = monitorChoice { return false }
        #if os(Linux)
        return true
        #else
        if case .custom = monitorChoice { return true }
        return false
        #endif
    }

    /// What the state machine needs to know, resolved for a client of `kind`.
    /// - Parameter monitorsNetwork: the URL's host needs a network interface (not loopback).
    func machineConfiguration(kind: TransportKind, monitorsNetwork: Bool) -> ClientStateMachine.Configuration {
        ClientStateMachine.Configuration(
            backoff: backoff, reconnect: reconnect, requestIsRepeatable: resolvedRequestIsRepeatable(kind),
            waitsForConsumer: kind == .sse || messageID != nil || resume != nil,
            monitorsNetwork: hasNetworkMonitor && monitorsNetwork,
            refreshesCredentials: headersProvider != nil, sharesRetryBudget: retryBudget != nil,
            loadsCursor: lastEventID == nil && cursorStore != nil, cursor: lastEventID,
            hasTerminator: terminator != nil, pathChangeProbeTimeout: pathChangeProbeTimeout,
            sendPolicy: sendPolicy, canSend: kind == .webSocket, openHookTimeout: onOpen == nil ? nil : onOpenTimeout,
            resumes: resume != nil, maxResumesWithoutProgress: max(1, resume?.maxResumesWithoutProgress ?? 3))
    }
}
