#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore

extension Message {
    /// Decodes the payload as JSON: SSE data or a WebSocket text message as its UTF-8
    /// bytes, a binary message as its bytes.
    ///
    /// ```swift
    /// let chunk = try message.decode(ChatChunk.self)
    /// ```
    ///
    /// - Throws: the decoder's `DecodingError` (it names the coding path; Foundation's
    ///   messages do not quote the data).
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(T.self, from: Data(bytes))
    }
}
