extension RealtimeClient {
    /// The base of the reconnect delays now: the server's latest SSE `retry:` (WHATWG HTML
    /// §9.2.6 "reconnection time"), bounded by ``BackoffPolicy/minimumDelay`` and
    /// ``BackoffPolicy/maximumServerDelay`` (``BackoffPolicy/maximum`` when that is nil);
    /// without one, ``BackoffPolicy/initial``.
    ///
    /// It changes when a `retry:` field arrives, before the events that follow it in the
    /// stream, so a consumer reading it while handling an event sees the value in force. After
    /// a `retry:` the next attempt waits this long plus up to 25 % (jitter), growing over
    /// consecutive failures; the `error` or `closed` that announces the attempt carries the
    /// real delay in ``ErrorEvent/retryIn``.
    public var reconnectionTime: Duration { storage.state.withLock { $0.machine.reconnectionTime } }
}
