/// One message received from the server, whichever transport carried it.
///
/// SSE events fill ``type`` and ``id`` (WHATWG HTML §9.2.6: the event type, default
/// `"message"`, and the last event ID *at dispatch*); WebSocket messages leave them nil
/// (unless the client's `Configuration.messageID` reads an id from the payload).
public struct Message: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        /// A text payload: SSE `data`, or a WebSocket text message (valid UTF-8).
        case text(String)
        /// A WebSocket binary message.
        case binary([UInt8])
    }

    public var content: Content
    /// SSE event type (`event:` field, `"message"` when absent); nil for WebSocket.
    public var type: String?
    /// SSE last event ID when this event was dispatched; for WebSocket, what the client's
    /// `Configuration.messageID` read from the payload, else nil.
    public var id: String?

    public init(content: Content, type: String? = nil, id: String? = nil) {
        self.content = content
        self.type = type
        self.id = id
    }

    /// An SSE event.
    public static func sse(type: String, data: String, id: String) -> Message {
        Message(content: .text(data), type: type, id: id)
    }

    /// The payload as text: SSE data or a WebSocket text message; nil for binary.
    public var text: String? {
        if case .text(let s) = content { return s }
        return nil
    }

    /// The payload's size in bytes (UTF-8 for text), without copying it.
    public var payloadByteCount: Int {
        switch content {
        case .text(let s): return s.utf8.count
        case .binary(let b): return b.count
        }
    }

    /// The payload's bytes (UTF-8 for text).
    public var bytes: [UInt8] {
        switch content {
        case .text(let s): return Array(s.utf8)
        case .binary(let b): return b
        }
    }
}
