/// A `RealtimeClient`'s reply as ``LLMDelta``s: each message decoded by an
/// ``LLMStreamDecoder``, and a failure that ends the reply as a last
/// ``LLMDelta/error(_:)``. Made by `RealtimeClient.deltas(format:)`.
///
/// - The sequence ends when the reply does: after the client's last event, after an error
///   object in the stream (`stream_error`), or after a message the decoder rejects
///   (`protocol_violation`). In the last two cases the client is closed at once (the
///   connection is released; nothing more is read). A format whose stream carries many
///   replies (``LLMStreamDecoder/carriesManyReplies``: an OpenAI Realtime session) goes on
///   after a `stream_error`, which ends one reply; a rejected message still ends it.
/// - A client error after which the client gives up (`willRetry == false`: an HTTP status
///   with its body excerpt and `Retry-After`, a cut that cannot be repeated, a reply that
///   ended without its terminator (`truncated`), … with the cause of a wrapping error in
///   `RealtimeError.underlying`) is the last delta. Errors the client retries and the
///   `open`/`closed` events are not deltas.
/// - Everything decoded before an error is delivered before it.
///
/// Single pass, like `RealtimeClient.events`: leaving the loop closes the client (in
/// top-level code, where Swift keeps the loop's iterator until the program ends, call
/// `client.close()` instead).
public struct LLMDeltaSequence<Decoder: LLMStreamDecoder>: AsyncSequence, Sendable {

    let client: RealtimeClient
    let decoder: Decoder

    public func makeAsyncIterator() -> AsyncIterator {
        let events = RealtimeClient.Events(client: client, terminator: Decoder.terminator)
        return AsyncIterator(events: events.makeAsyncIterator(), client: client, decoder: decoder)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {

        var events: RealtimeClient.Events.AsyncIterator
        let client: RealtimeClient
        var decoder: Decoder
        /// Deltas of the last message not yet returned, from `pendingIndex` on.
        var pending: [LLMDelta] = []
        var pendingIndex = 0
        var done = false

        public mutating func next() async -> LLMDelta? {
            while true {
                if pendingIndex < pending.count {
                    pendingIndex += 1
                    return pending[pendingIndex - 1]
                }
                pending.removeAll(keepingCapacity: true)
                pendingIndex = 0
                if done { return nil }
                guard let event = await events.next() else {
                    done = true
                    return nil
                }
                handle(event)
            }
        }

        private mutating func handle(_ event: ClientEvent) {
            switch event {
            case .event(let message):
                do {
                    try decoder.decode(message, into: &pending)
                } catch {
                    pending.append(.error(error))
                    end()
                    return
                }
                // In a session of many replies an error object ends one reply, not the stream.
                if !Decoder.carriesManyReplies,
                    let failure = pending.firstIndex(where: { if case .error = $0 { return true } else { return false } }) {
                    pending.removeSubrange((failure + 1)...)
                    end()
                }
            case .error(let failure) where !failure.willRetry:
                pending.append(.error(failure.error))
                end()
            case .open, .error, .closed:
                break
            }
        }

        /// The reply is over: nothing more is read, and the connection is released now.
        private mutating func end() {
            done = true
            client.close()
        }
    }
}
