import Realtime

extension GraphQLSession {
    /// The one consumer of the client's events: routes `next`, `error` and `complete` by id
    /// to each operation, in the order they arrived; ends every operation when the events end.
    ///
    /// A message belongs to the connection of the last `open` before it (messages the
    /// handshake passed over come right after its `open`).
    func route(_ realtime: RealtimeClient) async {
        var attempt = 0
        var failure: RealtimeError?
        for await event in realtime.events {
            switch event {
            case .open(let info):
                attempt = info.attempt
            case .event(let message):
                await handle(message, attempt: attempt)
            case .error(let e):
                failure = e.willRetry ? nil : e.error
            case .closed:
                break
            }
        }
        stopped(failure)
    }

    private func handle(_ message: Message, attempt: Int) async {
        let inbound = GraphQLInbound(message)
        let (action, operation): (GraphQLSessionMachine.InboundAction, (any GraphQLOperationSink)?) = state.withLock { s in
            let action = s.machine.received(inbound, attempt: attempt)
            switch action {
            case .deliver(let key, _): return (action, s.operations[key])
            case .end(let key, _): return (action, s.operations.removeValue(forKey: key))
            case .send(let item):
                outgoing.yield(item)
                return (action, nil)
            case .ignore, .violation: return (action, nil)
            }
        }
        switch action {
        case .deliver(_, let id): await operation?.deliver(message.text ?? "", id: id)
        case .end(_, let error): operation?.finish(error)
        case .violation(let detail): failConnection(attempt: attempt, detail)
        case .ignore, .send: break
        }
    }
}
