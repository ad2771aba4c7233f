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
    /// - When `handle` throws, the event is not processed: the client is closed at once and
    ///   `consume` rethrows. A client started again (a new process with the same cursor
    ///   store) receives that event again.
    /// - When the events end (the client gave up: its last `.error` has `willRetry` false;
    ///   or an orderly end), `consume` returns.
    ///
    /// Like `for await` over ``events``, it starts the client, may run once per client, and
    /// closes the client when it returns or throws. `handle` runs on the caller's actor.
    public func consume(
        isolation: isolated (any Actor)? = #isolation,
        _ handle: (ClientEvent) async throws -> Void
    ) async throws {
        try await consume(isolation: isolation) { event, _ in try await handle(event) }
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
        _ handle: (ClientEvent, ConsumeContext) async throws -> Void
    ) async throws {
        let context = ConsumeContext()
        var iterator = events.makeAsyncIterator()
        // Asking for the next event commits the one before it (see `events`); a throw leaves
        // the loop without asking, and dropping the iterator closes the client.
        while let event = await iterator.next(isolation: isolation) {
            try await handle(event, context)
            if context.isStopped {
                await acknowledge()
                close()
                return
            }
        }
    }
}
