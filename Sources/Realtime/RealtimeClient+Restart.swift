extension RealtimeClient {
    /// Connects again now, keeping the resume cursor: after the credentials changed (the
    /// ``Configuration/headersProvider`` has new ones), the app came back to the foreground,
    /// or anything the next attempt reads changed.
    ///
    /// The live connection is closed cleanly (the consumer sees `.closed` with
    /// `willReconnect == true`) and the next attempt starts at once, with `Last-Event-ID`
    /// (SSE) or the WebSocket cursor as after any reconnect. It is not a failure: no `error`,
    /// no backoff (the next failure starts the delays over), not counted in
    /// ``ClientStatistics/errorsByClass`` (``ClientStatistics/restarts`` counts it). While
    /// waiting to retry, the wait is cut short. No-op before ``events`` is iterated, while
    /// ``suspend()`` is in effect (``resume()`` connects anyway) and after the client is done.
    public func restart() {
        handle { machine, now in machine.restart(now: now) }
    }
}
