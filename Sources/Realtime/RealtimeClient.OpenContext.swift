extension RealtimeClient {
    /// Handed to ``Configuration/onOpen`` on every open connection: what the connection
    /// negotiated, and a way to send on it before anything else goes out.
    ///
    /// **Order.** The hook runs after the handshake (the consumer has been handed the
    /// `.open` event; messages the server sends meanwhile are delivered as usual) and before
    /// the client's outbox (``SendPolicy/queue(maxMessages:maxBytes:timeout:)``) goes out:
    /// messages sent here reach the server first, then the queued ones, then what the app
    /// sends afterwards. While the hook runs, `RealtimeClient.send` with the queue policy
    /// queues behind it; with ``SendPolicy/failFast`` a send goes straight to the connection
    /// and is not ordered with the hook's.
    ///
    /// **Failure.** When the hook throws, or does not return within
    /// ``Configuration/onOpenTimeout``, the client closes the connection and the attempt
    /// fails with `open_hook_failed` (class ``RealtimeError/FailureClass/openHook``; the
    /// hook's ``RealtimeError``, if it threw one, is its ``RealtimeError/underlying``): the
    /// consumer sees `.error` then `.closed`, and the reconnect policy retries with backoff,
    /// as after a network failure. A hook that ignores cancellation is not waited for.
    ///
    /// **SSE.** The hook runs on every SSE open too (to register the stream elsewhere, to
    /// check its headers and fail the attempt); ``send(_:flush:)`` throws
    /// `send_not_supported` there.
    public struct OpenContext: Sendable {
        /// What the connection negotiated (attempt number, URL, status, headers, subprotocol).
        public let info: ConnectionInfo
        let sender: @Sendable (OutboundMessage, Bool) async throws -> Void

        /// The attempt's number (1 for the first connection).
        public var attempt: Int { info.attempt }

        /// Sends `message` on this connection, before the outbox; returns once the connection
        /// accepted it (with `flush`, once it is written). Throws `not_connected` when the
        /// connection is gone, `send_not_supported` on SSE.
        public func send(_ message: OutboundMessage, flush: Bool = false) async throws {
            try await sender(message, flush)
        }
    }
}
