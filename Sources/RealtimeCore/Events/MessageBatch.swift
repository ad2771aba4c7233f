/// The messages that arrived together (in one wake-up of the connection's I/O thread), in
/// stream order, for consumers that want throughput rather than one ``Message`` at a time:
/// see `RealtimeClient.batches`.
///
/// An SSE batch keeps the data of its events as received, in one block of bytes, with each
/// event's range, id and type beside it: nothing per event is allocated until asked for.
/// ``BatchedMessage/withUnsafeBytes(_:)`` reads an event's data in place;
/// ``BatchedMessage/text`` builds its `String` on demand. Other batches (WebSocket
/// messages, or SSE with a `terminator` configured) hold their ``Message``s.
///
/// A batch is a value: it may be kept, sent to another task, or dropped; its bytes live as
/// long as the batch or a ``BatchedMessage`` taken from it.
public struct MessageBatch: Sendable, RandomAccessCollection {
    public typealias Element = BatchedMessage
    public typealias Index = Int

    enum Storage: Sendable {
        case packed(PackedMessages)
        case messages([Message])
    }

    let storage: Storage

    /// A batch of packed SSE events.
    package init(packed: PackedMessages) {
        storage = .packed(packed)
    }

    /// A batch of whole messages.
    public init(_ messages: [Message]) {
        storage = .messages(messages)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .packed(let p): return p.records.count
        case .messages(let m): return m.count
        }
    }

    /// The message at `position` (a light view: nothing is copied).
    public subscript(position: Int) -> BatchedMessage {
        precondition(position >= 0 && position < endIndex, "MessageBatch index out of range")
        return BatchedMessage(storage: storage, index: position)
    }

    /// The payload bytes of all the messages (UTF-8 for text), as received.
    public var payloadByteCount: Int {
        switch storage {
        case .packed(let p): return p.byteCount
        case .messages(let m): return m.reduce(0) { $0 &+ $1.payloadByteCount }
        }
    }

    /// The id the batch contributes to the resume cursor: that of its last message carrying
    /// one (for SSE, the last event's last event ID), nil when none does.
    package var resumeID: String? {
        switch storage {
        case .packed(let p): return p.ids.last
        case .messages(let m): return m.last(where: { $0.id != nil })?.id
        }
    }

    /// Whether the batch is packed (an SSE transport's, data in one block).
    package var isPacked: Bool {
        if case .packed = storage { return true }
        return false
    }

    /// Every message as a ``Message`` (each SSE event's text built now).
    public var messages: [Message] { map(\.message) }
}

/// One message of a ``MessageBatch``: its id, type and payload, read in place.
public struct BatchedMessage: Sendable {
    let storage: MessageBatch.Storage
    let index: Int

    init(storage: MessageBatch.Storage, index: Int) {
        self.storage = storage
        self.index = index
    }

    /// SSE event type (`"message"` when the event had no `event:` field); nil for WebSocket.
    public var type: String? {
        switch storage {
        case .packed(let p): return p.types[Int(p.records[index].type)]
        case .messages(let m): return m[index].type
        }
    }

    /// SSE last event ID at dispatch; for WebSocket, what `Configuration.messageID` read.
    public var id: String? {
        switch storage {
        case .packed(let p): return p.ids[Int(p.records[index].id)]
        case .messages(let m): return m[index].id
        }
    }

    /// The payload's size in bytes as received.
    public var payloadByteCount: Int {
        switch storage {
        case .packed(let p): return p.records[index].count
        case .messages(let m): return m[index].payloadByteCount
        }
    }

    /// Calls `body` with the payload's bytes as received, in place (valid only inside
    /// `body`): SSE data before any UTF-8 repair, a WebSocket text message's UTF-8 or a
    /// binary message's bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch storage {
        case .packed(let p):
            let r = p.records[index]
            return try withExtendedLifetime(p) {
                try body(UnsafeRawBufferPointer(start: p.block.base + r.offset, count: r.count))
            }
        case .messages(let m):
            switch m[index].content {
            case .binary(let b): return try b.withUnsafeBytes(body)
            case .text(var s): return try s.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
            }
        }
    }

    /// The payload as text, built now (U+FFFD for invalid UTF-8 in SSE data, WHATWG's
    /// decode); nil for a binary message.
    public var text: String? {
        switch storage {
        case .packed(let p):
            let r = p.records[index]
            let bytes = UnsafeRawBufferPointer(start: p.block.base + r.offset, count: r.count)
            return withExtendedLifetime(p) { SSEUTF8.string(validated: bytes, valid: r.isValidUTF8, ascii: r.isASCII) }
        case .messages(let m):
            return m[index].text
        }
    }

    /// The whole ``Message`` (an SSE event's text built now).
    public var message: Message {
        switch storage {
        case .packed:
            return Message(content: .text(text ?? ""), type: type, id: id)
        case .messages(let m):
            return m[index]
        }
    }
}
