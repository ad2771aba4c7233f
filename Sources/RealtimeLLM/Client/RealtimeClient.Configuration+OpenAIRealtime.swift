extension RealtimeClient.Configuration {
    /// A session with the OpenAI Realtime API over WebSocket
    /// (`wss://api.openai.com/v1/realtime?model=gpt-realtime`), read with
    /// `client.deltas(format: .openAIRealtime)`.
    ///
    /// - `Authorization: Bearer <bearerToken>` on the upgrade request (never logged or shown
    ///   in an error); `beta` adds `OpenAI-Beta: realtime=v1` for servers on the beta
    ///   interface, whose event names ``OpenAIRealtimeDecoder`` reads as well.
    /// - The handshake (`onOpen`): it waits for `session.created`, then sends
    ///   `session.update` with `session` (when given: the session's configuration as a JSON
    ///   object) and waits for `session.updated`. Until then the connection is not ready:
    ///   messages sent with the outbox on (`RealtimeClient.send(_:flush:)` with `sendPolicy` `SendPolicy.queue(maxMessages:maxBytes:timeout:)`)
    ///   wait, so a conversation item queued early reaches a configured session. The two
    ///   events are the handshake's and are not delivered. An `error` event instead fails the
    ///   attempt with `open_hook_failed`, the server's error (code `stream_error`, its message
    ///   as the body excerpt) as the underlying error; so does silence beyond
    ///   `onOpenTimeout` (10 s).
    /// - No reconnect (`ReconnectPolicy.never`): the conversation lives in the server's
    ///   session, and a new connection is a new session without it. Set `reconnect` to
    ///   reconnect anyway; the handshake then configures each new session the same way.
    ///
    /// - Throws: `RealtimeError` `invalid_configuration` when `session` is not a JSON object.
    public static func openAIRealtime(
        bearerToken: String?, session: [UInt8]? = nil, beta: Bool = false, headers: HTTPHeaders = HTTPHeaders()
    ) throws(RealtimeError) -> Self {
        let update = try session.map { (session) throws(RealtimeError) in try OpenAIRealtimeEvent.sessionUpdate(session: session) }
        var c = Self()
        c.headers = headers
        if let bearerToken { c.headers.replaceOrAdd(name: "Authorization", value: "Bearer \(bearerToken)") }
        if beta { c.headers.replaceOrAdd(name: "OpenAI-Beta", value: "realtime=v1") }
        c.reconnect = .never
        c.onOpen = { context in
            try await openAIRealtimeHandshake(context, update: update)
        }
        return c
    }

    /// `session.created`, then `session.update` answered by `session.updated`; an `error`
    /// event in their place fails the handshake with the server's error.
    private static func openAIRealtimeHandshake(_ context: RealtimeClient.OpenContext, update: OutboundMessage?) async throws {
        func answer(_ expected: String) async throws {
            let message = try await context.receive { message in
                let type = OpenAIRealtimeEvent.type(of: message)
                return type == expected || type == "error"
            }
            if let error = OpenAIRealtimeEvent.error(in: message) { throw error }
        }
        try await answer("session.created")
        guard let update else { return }
        try await context.send(update)
        try await answer("session.updated")
    }
}
