/// One message received from the server, whichever transport carried it.
///
/// SSE events fill ``type`` and ``id`` (WHATWG HTML §9.2.6: the event type, default
/// `"message"`, and the last event ID *at dispatch*); WebSocket messages leave them nil
/// (unless the client's `Configuration.messageID` reads an id from the payload).
public struct Message: Sendable, Hashable {
    /// A message's payload: text or binary.
    public enum Content: Sendable, Hashable {
        /// A text payload: SSE `data`, or a WebSocket text message (valid UTF-8).
        case text(String)
        /// A WebSocket binary message.
        case binary([UInt8])
    }

    /// The payload as received: its content, or (for SSE events parsed on the I/O thread)
    /// data bytes whose `String` is built on first use, by the consumer's thread.
    enum Payload: Sendable {
        case content(Content)
        case deferredText(SSEDeferredText)
    }

    var payload: Payload

    /// The payload (SSE data is built into a `String` on first use).
    public var content: Content {
        get {
            switch payload {
            case .content(let c): return c
            case .deferredText(let d): return .text(d.string())
            }
        }
        set { payload = .content(newValue) }
    }

    /// SSE event type (`event:` field, `"message"` when absent); nil for WebSocket.
    public var type: String?
    /// SSE last event ID when this event was dispatched; for WebSocket, what the client's
    /// `Configuration.messageID` read from the payload, else nil.
    public var id: String?
    /// An SSE comment (a line starting with `:`), delivered only when
    /// `SSEOptions.reportsComments` asks for them; ``text`` is the comment after
    /// the colon, less one leading space. ``type`` and ``id`` are nil, and the resume cursor
    /// does not move. False for every event and WebSocket message.
    public var isComment = false

    /// A message with this payload, SSE event type and id (nil for WebSocket messages).
    public init(content: Content, type: String? = nil, id: String? = nil) {
        self.payload = .content(content)
        self.type = type
        self.id = id
    }

    /// An SSE event whose text is built later (see ``SSEDataArena``).
    package init(deferredText: SSEDeferredText, type: String, id: String) {
        self.payload = .deferredText(deferredText)
        self.type = type
        self.id = id
    }

    /// Builds a deferred text now (on the calling thread); later reads cost nothing extra.
    package mutating func materialize() {
        if case .deferredText(let d) = payload { payload = .content(.text(d.string())) }
    }

    public static func == (a: Message, b: Message) -> Bool {
        a.type == b.type && a.id == b.id && a.isComment == b.isComment && a.content == b.content
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(content)
        hasher.combine(type)
        hasher.combine(id)
    }

    /// An SSE comment's text (see ``isComment``).
    public static func comment(_ text: String) -> Message {
        var m = Message(content: .text(text))
        m.isComment = true
        return m
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

    /// The payload's size in bytes as received (UTF-8 for text), without copying it.
    public var payloadByteCount: Int {
        switch payload {
        case .content(.text(let s)): return s.utf8.count
        case .content(.binary(let b)): return b.count
        case .deferredText(let d): return d.count
        }
    }

    /// Calls `body` with the bytes ``bytes`` would return, in place where they already are
    /// (the SSE arena, the string's storage): for a scan on the I/O thread without a copy.
    package func withPayloadBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if case .deferredText(let d) = payload, d.isValidUTF8 { return try d.withBytes(body) }
        switch content {
        case .text(var s): return try s.withUTF8(body)
        case .binary(let b): return try b.withUnsafeBufferPointer(body)
        }
    }

    /// The payload's bytes (UTF-8 for text; for SSE data with invalid UTF-8, the bytes
    /// after U+FFFD replacement).
    public var bytes: [UInt8] {
        switch payload {
        case .deferredText(let d) where d.isValidUTF8: return d.byteArray()
        default: break
        }
        switch content {
        case .text(let s): return Array(s.utf8)
        case .binary(let b): return b
        }
    }
}
