/// What marks the end of a finite stream, such as an LLM reply: OpenAI-style `data: [DONE]`,
/// Anthropic's `event: message_stop`, or the Responses API's `response.completed`.
///
/// With one configured (`RealtimeClient.Configuration.terminator`), the client closes the
/// connection as soon as the matching message arrives (a server may keep it open after the end
/// of the reply), emits `closed` (clean, no reconnect) and finishes its events. The matching
/// message itself is not delivered, unless the terminator was made with `delivered: true`: an
/// end marker that carries data (a usage count, a finish reason) is then the last event
/// delivered before `closed`. A stream that ends cleanly without its terminator was cut
/// short: a resume plan resumes it; otherwise, under a reconnect policy that does not
/// reconnect after a clean end (`ReconnectPolicy.finite`, which the LLM presets use), it is
/// reported as ``RealtimeError/Code/truncated``, and under one that does, the client
/// reconnects.
///
/// The predicate runs for every message on the event loop's I/O thread, which serves every
/// connection of the process: it must not block, wait on a lock or do I/O, or every
/// connection stalls while it runs. ``data(_:delivered:)`` and ``eventType(_:delivered:)``
/// compare a length or a type before any text is built.
public struct StreamTerminator: Sendable {
    let predicate: @Sendable (Message) -> Bool
    /// Whether the matching message is delivered before the stream ends (it carries data).
    public let delivered: Bool

    /// Whether `message` ends the stream.
    package func matches(_ message: Message) -> Bool { !message.isComment && predicate(message) }

    /// A message whose text equals `text` exactly: an SSE event whose `data` is `text` (e.g.
    /// `[DONE]`), or a WebSocket text message. `delivered`: whether it reaches the consumer
    /// before the end (default false).
    public static func data(_ text: String, delivered: Bool = false) -> StreamTerminator {
        let length = text.utf8.count
        // The length first: the text of other messages is not built on the I/O thread.
        return StreamTerminator(predicate: { $0.payloadByteCount == length && $0.text == text }, delivered: delivered)
    }

    /// An SSE event of type `type` (its `event:` field), e.g. `message_stop`. `delivered`:
    /// whether it reaches the consumer before the end (default false).
    public static func eventType(_ type: String, delivered: Bool = false) -> StreamTerminator {
        StreamTerminator(predicate: { $0.type == type }, delivered: delivered)
    }

    /// Any message `predicate` accepts. `delivered`: whether it reaches the consumer before the
    /// end (default false), e.g. for the Responses API's `response.completed`, which carries
    /// the usage.
    public static func matching(
        delivered: Bool = false, _ predicate: @escaping @Sendable (Message) -> Bool
    ) -> StreamTerminator {
        StreamTerminator(predicate: predicate, delivered: delivered)
    }
}
