extension MCPClient {
    /// The `_meta` key that ties a listen stream's frames to its `subscriptions/listen` request.
    static let subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"

    /// A listen stream in progress: where its changes go and what it asked for.
    struct Listener {
        var filter: MCPSubscriptionFilter
        var sink: MCPChangeQueue
        /// What the server acknowledged on the current stream (nil before the ack).
        var honored: MCPSubscriptionFilter?
        /// The current stream delivered a change (not only its acknowledgement).
        var changed = false
    }

    /// Changes of the server's lists and resources, as long as the sequence is iterated.
    ///
    /// On a 2026-07-28 server this is `subscriptions/listen`: a request whose SSE answer is the
    /// stream. It starts with ``MCPChange/listening(honored:)`` (the server's acknowledgement),
    /// then each change the server publishes that the filter asked for. A stream that is cut,
    /// or that the server ends (shutting down), is listened to again after a pause: 0.1 s
    /// after a stream that delivered a change, else 0.2 s, doubling for each stream in a row
    /// that delivered none, up to 10 s (on the transport's clock). Each new
    /// stream starts with `listening` again: changes made while no stream was open are not
    /// told, so read again what you keep. A JSON-RPC error (a server without the method, a
    /// subscription limit), a refusal (HTTP 4xx but 408 and 429) or an answer that is not MCP
    /// (`invalid_response`, `invalid_message`) ends the sequence with that ``MCPError``. No
    /// ``Configuration/requestTimeout`` applies: the stream is meant to stay open.
    ///
    /// On an earlier revision the same changes come from the session's notifications: `listening`
    /// with the filter first, `resources/subscribe` for each URI (when the server's
    /// capabilities offer it), then the matching notifications (they reach ``notifications``
    /// too).
    ///
    /// A reader that is behind loses nothing and holds little: a change that is already
    /// waiting is not queued again (every change is a level trigger), so however many
    /// notifications a server sends, what waits is at most each distinct change once.
    ///
    /// Ending the iteration (or cancelling its task) ends the subscription: the listen
    /// request is cancelled on the server. ``close()`` ends the sequence; on a client that is
    /// closed it ends at once with `not_connected`.
    public nonisolated func listen(_ filter: MCPSubscriptionFilter) -> AsyncThrowingStream<MCPChange, any Error> {
        let sink = MCPChangeQueue()
        let subscription = ListenTask(Task { await self.runListen(filter, sink) })
        return AsyncThrowingStream {
            // The subscription lives as long as the sequence: dropping it cancels the task.
            let change = try await sink.next()
            withExtendedLifetime(subscription) {}
            return change
        }
    }

    /// Cancels a listen's task when its sequence goes away.
    private final class ListenTask: Sendable {
        let task: Task<Void, Never>
        init(_ task: Task<Void, Never>) { self.task = task }
        deinit { task.cancel() }
    }

    private func runListen(_ filter: MCPSubscriptionFilter, _ sink: MCPChangeQueue) async {
        guard !isClosed else { return sink.finish(throwing: MCPError(.notConnected, detail: "closed")) }
        do {
            if let revision = server?.revision, !revision.isStateless {
                try await listenOnSession(filter, sink)
            } else {
                try await listenStreams(filter, sink)
            }
            sink.finish()
        } catch is CancellationError {
            sink.finish()
        } catch {
            sink.finish(throwing: error)
        }
    }

    /// `subscriptions/listen` again and again, until a JSON-RPC error or cancellation.
    private func listenStreams(_ filter: MCPSubscriptionFilter, _ sink: MCPChangeQueue) async throws {
        var failures = 0
        while !Task.isCancelled, !isClosed {
            let id = JSONValue.number(Double(nextID))
            nextID += 1
            listeners[id] = Listener(filter: filter, sink: sink)
            do {
                _ = try await requestOnce("subscriptions/listen", params: ["notifications": filter.json], onProgress: nil, id: id, timeout: nil)
            } catch let error as MCPError where Self.endsListening(error) {
                listeners[id] = nil
                throw error.code == .cancelled ? CancellationError() : error
            } catch {}
            // A stream that delivered nothing but its acknowledgement is no progress: a server
            // that acknowledges and hangs up at once is listened to again with a growing pause.
            failures = listeners.removeValue(forKey: id)?.changed == true ? 0 : failures + 1
            let pause = Duration.milliseconds(100) * (1 << min(failures, 7))
            try await transport.clock.sleep(transport.clock.now() + min(pause, .seconds(10)))
        }
        if isClosed { throw MCPError(.notConnected, detail: "closed") }
        throw CancellationError()
    }

    /// Whether `error` ends a listen sequence instead of a new stream: a JSON-RPC error, a
    /// cancellation, an answer that is not MCP, or a refusal (HTTP 4xx but 408 and 429).
    static func endsListening(_ error: MCPError) -> Bool {
        switch error.code {
        case .rpc, .cancelled, .invalidResponse, .invalidMessage, .unsupportedRevision: return true
        default: return error.status.map { (400..<500).contains($0) && $0 != 408 && $0 != 429 } ?? false
        }
    }

    /// An earlier revision: the session's notifications, after `resources/subscribe`.
    private func listenOnSession(_ filter: MCPSubscriptionFilter, _ sink: MCPChangeQueue) async throws {
        if server?.capabilities["resources"]?["subscribe"] == .bool(true) {
            for uri in filter.resourceURIs { try await subscribe(uri) }
        }
        let id = JSONValue.string("session-listen-\(nextID)")
        nextID += 1
        listeners[id] = Listener(filter: filter, sink: sink, honored: filter)
        sink.yield(.listening(honored: filter))
        defer { listeners[id] = nil }
        // Until cancelled (the sleep then throws).
        while true { try await Task.sleep(for: .seconds(86_400)) }
    }

    /// Routes a notification to the listeners: a listen stream's frame (its `_meta` names the
    /// subscription) goes to its listener only, and true is returned; on an earlier revision a
    /// session notification also goes to every listener whose filter asked for it.
    func routeToListeners(_ method: String, params: JSONValue?) -> Bool {
        if let id = params?["_meta"]?[Self.subscriptionIDKey] {
            // A frame of a stream no longer listened to is dropped.
            guard var listener = listeners[id] else { return true }
            if method == "notifications/subscriptions/acknowledged" {
                let honored = MCPSubscriptionFilter(json: params?["notifications"])
                listener.honored = honored
                listeners[id] = listener
                listener.sink.yield(.listening(honored: honored))
            } else if let change = (listener.honored ?? listener.filter).change(method, params: params) {
                listener.changed = true
                listeners[id] = listener
                listener.sink.yield(change)
            }
            return true
        }
        guard server?.revision.isStateless == false else { return false }
        for listener in listeners.values {
            if let change = listener.filter.change(method, params: params) { listener.sink.yield(change) }
        }
        return false
    }
}
