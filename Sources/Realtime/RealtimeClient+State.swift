extension RealtimeClient {
    /// What the client is doing; see ``RealtimeClient/state`` and
    /// ``RealtimeClient/stateChanges``.
    public enum State: Sendable, Hashable {
        /// Nobody iterates ``RealtimeClient/events`` yet (nothing happens until then).
        case idle
        /// Attempt `attempt` (numbered as ``ConnectionInfo/attempt``) is being made: connecting,
        /// or running the on-open hook (the application's handshake) on the open transport.
        case connecting(attempt: Int)
        /// A connection is live.
        case open(ConnectionInfo)
        /// Waiting for the next attempt: the backoff (or a server's `retry:`/`Retry-After`,
        /// a retry-budget slot, a circuit breaker's cool-down) for `in` more, then, for exact
        /// resume, until the consumer has processed what it received. `in` is the time left
        /// when the state was read, on the client's clock (the injected one, when the client
        /// was made with a clock); zero once the delay is over.
        case waitingToRetry(in: Duration)
        /// The network monitor says there is no network: no attempt until it returns.
        case waitingForNetwork
        /// ``RealtimeClient/suspend()`` is in effect.
        case suspended
        /// The client is done: `nil` after an orderly end (an end-of-stream terminator, SSE
        /// 204, the clean end of a finite stream), the error that stopped it, or `cancelled`
        /// after ``RealtimeClient/close()``.
        case closed(RealtimeError?)
    }

    /// What the client is doing now.
    public var state: State { state(of: storage.state.withLock { $0.published }) }

    /// The client's states as they change, starting with the current one and ending after
    /// ``State/closed(_:)``. Latest wins: a consumer slower than the changes sees the newest
    /// state, not every one in between (memory stays bounded). Any number of iterators, each
    /// from any task; iterating does not start the client.
    public var stateChanges: StateChanges { StateChanges(client: self) }

    func state(of snapshot: ClientStateMachine.Snapshot) -> State {
        switch snapshot {
        case .idle: return .idle
        case .connecting(let attempt): return .connecting(attempt: attempt)
        case .open(let info): return .open(info)
        case .waitingToRetry(let until): return .waitingToRetry(in: max(.zero, until - clock.now()))
        case .waitingForNetwork: return .waitingForNetwork
        case .suspended: return .suspended
        case .closed(let reason): return .closed(reason)
        }
    }

    /// See ``RealtimeClient/stateChanges``.
    public struct StateChanges: AsyncSequence, Sendable {
        let client: RealtimeClient

        public func makeAsyncIterator() -> AsyncIterator {
            let id: UInt64 = client.storage.state.withLock { s in
                s.nextStateIterator &+= 1
                return s.nextStateIterator
            }
            return AsyncIterator(client: client, id: id)
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            let client: RealtimeClient
            let id: UInt64
            var seen: UInt64 = 0
            var ended = false

            /// The next state newer than the last one returned; nil after `closed` or when
            /// the task is cancelled.
            public mutating func next() async -> State? {
                while !ended, !Task.isCancelled {
                    if let (snapshot, version) = client.nextState(after: seen) {
                        seen = version
                        if case .closed = snapshot { ended = true }
                        return client.state(of: snapshot)
                    }
                    await client.waitForState(after: seen, id: id)
                }
                return nil
            }
        }
    }

    /// The published state if newer than `version`.
    func nextState(after version: UInt64) -> (ClientStateMachine.Snapshot, UInt64)? {
        storage.state.withLock { s in s.publishedVersion > version ? (s.published, s.publishedVersion) : nil }
    }

    /// Waits until a state newer than `version` is published, or the task is cancelled.
    func waitForState(after version: UInt64, id: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let ready: Bool = storage.state.withLock { s in
                    if s.publishedVersion > version || Task.isCancelled { return true }
                    s.stateWaiters[id] = c
                    return false
                }
                if ready { c.resume() }
            }
        } onCancel: {
            storage.state.withLock { $0.stateWaiters.removeValue(forKey: id) }?.resume()
        }
    }
}
