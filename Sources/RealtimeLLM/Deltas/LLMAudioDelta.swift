import RealtimeCore

/// A fragment of a reply's audio (OpenAI Realtime `response.output_audio.delta`): the bytes
/// the wire carried in base64, decoded, in the session's output format (PCM16 at 24 kHz
/// unless the session chose another).
public struct LLMAudioDelta: Sendable, Hashable {
    /// The conversation item the audio belongs to (`item_id`), when the wire names one.
    public var itemID: String?
    /// The audio bytes, in stream order.
    public var bytes: [UInt8]

    /// An audio fragment; for tests and decoders of your own.
    public init(itemID: String? = nil, bytes: [UInt8]) {
        self.itemID = itemID
        self.bytes = bytes
    }
}
