extension ClientStateMachine {
    /// The base of the reconnect delays: the server's `retry:` when it sent one, else the
    /// policy's first delay.
    package var reconnectionTime: Duration { backoff.reconnectionTime }
}
