extension ClientStateMachine {
    /// Tracks whether the consumer was last told that another attempt follows: an `error` with
    /// `willRetry`, a `closed` with `willReconnect`; an `open` keeps that promise.
    mutating func notePromise(_ event: ClientEvent) {
        switch event {
        case .error(let e): promisedRetry = e.willRetry
        case .closed(let c): promisedRetry = c.willReconnect
        case .open: promisedRetry = false
        case .event: break
        }
    }

    /// The last event of a finished stream never promises a reconnect. An attempt that stops
    /// the client without reporting anything (an SSE 204 answering a resume, after a `closed`
    /// or an `error` that announced that resume) withdraws the promise with a final
    /// `stream_ended` error whose `willRetry` is false.
    mutating func finalWord(_ verdict: Verdict) -> Effects {
        guard promisedRetry, verdict.delay == nil else { return .nothing }
        let error: RealtimeError
        if verdict.end.doNotReconnect {
            error = RealtimeError(.streamEnded, detail: "the server asked not to reconnect", status: 204)
        } else {
            error = RealtimeError(.streamEnded, detail: "the stream ended; no reconnect")
        }
        let event = ErrorEvent(error: error, willRetry: false, retryIn: nil, attempt: verdict.attempt)
        return emit(.error(event))
    }
}
