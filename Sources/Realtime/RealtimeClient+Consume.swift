extension RealtimeClient {
    /// Runs `handle` for each event, in order, and counts an event as processed exactly when
    /// `handle` returns normally: the easy way to exact resume (SSE ids, or ids read by
    /// ``Configuration/messageID``, committed to ``lastEventID`` and saved to
    /// ``Configuration/cursorStore``).
    ///
    /// ```swift
    /// try await client.consume { event in
    ///     guard case .event(let message) = event else { return }
    ///     try database.insert(message)   // throws: not processed, comes again after a restart
    /// }
    /// ```
    ///
    /// - When `handle` returns, the event is processed: the cursor moves past it (and the
    ///   store saves it) before the next event is handed over or the client waits for one.
    /// - When `handle` throws, the event is not processed, and `onFailure` decides: by
    ///   default (``HandlerFailurePolicy/stop``) the client is closed at once and `consume`
    ///   rethrows (a client started again, a new process with the same cursor store,
    ///   receives that event again); with ``HandlerFailurePolicy/redeliver(maxDeliveries:after:)``
    ///   the same event is handed over again after a delay, a bounded number of times.
    /// - When the events end (the client gave up: its last `.error` has `willRetry` false;
    ///   or an orderly end), `consume` returns.
    ///
    /// Like `for await` over ``events``, it starts the client, may run once per client, and
    /// closes the client when it returns or throws. `handle` runs on the caller's actor.
    public func consume(
        isolation: isolated (any Actor)? = #isolation,
        onFailure policy: HandlerFailurePolicy = .stop,
        _ handle: (ClientEvent) async throws -> Void
    ) async throws {
        try await consume(isolation: isolation, onFailure: policy) { event, _ in try await handle(event) }
    }

    /// `consume { event in … }`, with a ``ConsumeContext`` whose
    /// ``ConsumeContext/stop()`` ends the consumption after the current event, which then
    /// counts as processed.
    ///
    /// ```swift
    /// try await client.consume { event, context in
    ///     guard case .event(let message) = event else { return }
    ///     try database.insert(message)
    ///     if message.type == "end" { context.stop() }   // processed, then the client closes
    /// }
    /// ```
    public func consume(
        isolation: isolated (any Actor)? = #isolation,
        onFailure policy: HandlerFailurePolicy = .stop,
        _ handle: (ClientEvent, ConsumeContext) async throws -> Void
    ) async throws {
        try policy.validate()
        let context = ConsumeContext()
        var iterator = events.makeAsyncIterator()
        // Asking for the next event commits the one before it (see `events`); a throw leaves
        // the loop without asking, and dropping the iterator closes the client.
        while let event = await iterator.next(isolation: isolation) {
            var deliveries = 1
            while true {
                do {
                    try await handle(event, context)
                    break
                } catch {
                    guard case .redeliver(let max, let delay) = policy.base, deliveries < max else { throw error }
                    guard await waitToRedeliver(after: delay, deliveries: deliveries) else { throw error }
                    deliveries += 1
                }
            }
            if context.isStopped {
                await acknowledge()
                close()
                return
            }
        }
    }
}

extension RealtimeClient {
    /// The pause before a redelivery (``HandlerFailurePolicy/redeliver(maxDeliveries:after:)``);
    /// false when the client was closed (or the task cancelled) meanwhile: nothing more is
    /// delivered.
    func waitToRedeliver(after delay: Duration, deliveries: Int) async -> Bool {
        log(.warning, "the handler threw: delivering the event again", [
            "deliveries": "\(deliveries)", "retryIn": delay.millisecondsDescription,
        ])
        do { try await clock.sleep(until: clock.now() + delay) } catch { return false }
        return !storage.state.withLock { $0.machine.isTerminal }
    }
}
