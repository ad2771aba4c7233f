/// What marks the end of a finite stream, such as an LLM reply: OpenAI-style `data: [DONE]`
/// or Anthropic's `event: message_stop`.
///
/// With one configured (`RealtimeClient.Configuration.terminator`), the message that matches
/// is not delivered: the client closes the connection at once (a server may keep it open
/// after the end of the reply), emits `closed` (clean, no reconnect) and finishes its
/// events after what came before the terminator. A finite stream that ends cleanly without
/// its terminator is reported as an error with code ``RealtimeError/Code/truncated``.
///
/// The predicate runs for every message on the event loop's I/O thread, which serves every
/// connection of the process: it must not block, wait on a lock or do I/O, or every
/// connection stalls while it runs. ``data(_:)`` and ``eventType(_:)`` compare a length or a
/// type before any text is built.
public struct StreamTerminator: Sendable {
    let predicate: @Sendable (Message) -> Bool

    /// Whether `message` ends the stream.
    package func matches(_ message: Message) -> Bool { !message.isComment && predicate(message) }

    /// A message whose text equals `text` exactly: an SSE event whose `data` is `text` (e.g.
    /// `[DONE]`), or a WebSocket text message.
    public static func data(_ text: String) -> StreamTerminator {
        let length = text.utf8.count
        // The length first: the text of other messages is not built on the I/O thread.
        return StreamTerminator { $0.payloadByteCount == length && $0.text == text }
    }

    /// An SSE event of type `type` (its `event:` field), e.g. `message_stop`.
    public static func eventType(_ type: String) -> StreamTerminator {
        StreamTerminator { $0.type == type }
    }

    /// Any message `predicate` accepts.
    public static func matching(_ predicate: @escaping @Sendable (Message) -> Bool) -> StreamTerminator {
        StreamTerminator(predicate: predicate)
    }
}
