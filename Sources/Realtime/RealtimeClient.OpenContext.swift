extension RealtimeClient {
    /// Handed to ``Configuration/onOpen`` on every open connection: the application's
    /// handshake (`connection_init` → `connection_ack`, a join and its reply, a subscribe that
    /// carries the resume cursor) before the connection counts as ready.
    ///
    /// **Ready.** The hook runs once the transport is open (HTTP response head, WebSocket
    /// upgrade). Until it returns, the connection is not ready: ``RealtimeClient/state`` is
    /// still `connecting`, ``RealtimeClient/isConnected`` is false,
    /// ``RealtimeClient/waitUntilOpen(timeout:)`` waits, the consumer has not been handed the
    /// `.open` event, and the outbox (``SendPolicy/queue(maxMessages:maxBytes:timeout:)``)
    /// holds its messages. When the hook returns, the consumer gets `.open`, then the messages
    /// the server sent during the handshake that the hook did not take (in the order they
    /// arrived), then what follows; the outbox then goes out, after what the hook sent. With
    /// ``SendPolicy/failFast`` a `RealtimeClient.send` during the handshake throws
    /// `not_connected`.
    ///
    /// **Receiving.** ``receive()`` and ``receive(where:)`` wait for the server's messages on
    /// this connection. A message they return is the hook's: it is never delivered to the
    /// consumer, and does not move the resume cursor. Messages that `receive(where:)` passes
    /// over stay for the consumer. While the hook does not take them, the server's messages
    /// wait in a buffer of ``Configuration/eventBufferCapacity`` messages, beyond which the
    /// connection stops reading until the hook takes some. Receive one message at a time.
    ///
    /// **Failure.** When the hook throws, or does not return within
    /// ``Configuration/onOpenTimeout`` (which bounds its receives too), the client closes the
    /// connection and the attempt fails with `open_hook_failed` (class
    /// ``RealtimeError/FailureClass/openHook``; the hook's ``RealtimeError``, if it threw one,
    /// is its ``RealtimeError/underlying``): the consumer sees `.error` (no `.open` and no
    /// `.closed`: the connection never became ready), the messages the hook left are dropped
    /// with the connection, and the reconnect policy retries with backoff, as after a network
    /// failure. A hook that ignores cancellation is not waited for.
    ///
    /// **SSE.** The hook runs on every SSE open too (to read a first event such as an endpoint
    /// announcement, to check the response headers and fail the attempt); ``send(_:flush:)``
    /// throws `send_not_supported` there.
    public struct OpenContext: Sendable {
        /// What the connection negotiated (attempt number, URL, status, headers, subprotocol).
        public let info: ConnectionInfo
        /// The resume cursor this connection's request carried (``RealtimeClient/lastEventID``
        /// when the attempt started): what the consumer had processed. Put it in a subscribe
        /// message so the server resumes after it. nil before any event with an id was
        /// processed (unless one was configured or loaded).
        public let cursor: String?
        let sender: @Sendable (OutboundMessage, Bool) async throws -> Void
        let receiver: @Sendable (@escaping @Sendable (Message) -> Bool) async throws -> Message
        let failer: @Sendable (RealtimeError, UInt16) -> Void

        /// The attempt's number (1 for the first connection).
        public var attempt: Int { info.attempt }

        /// Sends `message` on this connection (during the hook, before the outbox); returns once
        /// the connection accepted it (with `flush`, once it is written). The context may be
        /// kept and used after the hook returned: its sends go to this connection only, never
        /// to a later one, which a protocol needs for messages that belong to one session (a
        /// subscription's `complete`, a packet's binary attachments). Throws `not_connected`
        /// once the connection is gone or the hook failed (it threw or ran out of time: a hook
        /// that goes on after its cancellation cannot write to the failing connection), and
        /// `send_not_supported` on SSE.
        public func send(_ message: OutboundMessage, flush: Bool = false) async throws {
            try await sender(message, flush)
        }

        /// Ends this connection because the protocol on top found it unusable (the server broke
        /// the protocol, its own heartbeat went unanswered): the client closes it (on
        /// WebSocket with `closeCode`, e.g. 4400 for a `graphql-transport-ws` violation) and the
        /// attempt ends with `error`, which the reconnect policy judges like any failure (a
        /// `protocol_violation`, `heartbeat_timeout` or `network` error is retried with backoff;
        /// a configuration or authorization error stops). Like ``send(_:flush:)`` it may be
        /// called after the hook returned, and acts on this connection only: once it is over
        /// (or failing already, or being ended by the client) this does nothing. During the
        /// hook it fails the handshake (throwing from the hook does the same).
        public func fail(_ error: RealtimeError, closeCode: UInt16 = 1002) {
            failer(error, closeCode)
        }

        /// The server's next message on this connection, taken from the consumer (see
        /// ``OpenContext``).
        ///
        /// - Throws: ``RealtimeError`` `not_connected` when the connection had ended before
        ///   the call; `cancelled` when the hook is cancelled while it waits (its time ran out,
        ///   the connection ended, the client closed); `invalid_configuration` for a second
        ///   receive while one waits.
        public func receive() async throws -> Message {
            try await receiver { _ in true }
        }

        /// The first message on this connection that `predicate` accepts, taken from the
        /// consumer; the messages before it that `predicate` refuses stay for the consumer, in
        /// order (see ``OpenContext``).
        ///
        /// ```swift
        /// configuration.onOpen = { context in
        ///     try await context.send(.text(#"{"type":"connection_init"}"#))
        ///     _ = try await context.receive { $0.text?.contains(#""connection_ack""#) == true }
        /// }
        /// ```
        ///
        /// - Throws: ``RealtimeError`` `not_connected` when the connection had ended before
        ///   the call; `cancelled` when the hook is cancelled while it waits (its time ran out,
        ///   the connection ended, the client closed); `invalid_configuration` for a second
        ///   receive while one waits.
        public func receive(where predicate: @escaping @Sendable (Message) -> Bool) async throws -> Message {
            try await receiver(predicate)
        }
    }
}
