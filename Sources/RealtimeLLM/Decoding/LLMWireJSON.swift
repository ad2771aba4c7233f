#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore

/// JSON decoding shared by the built-in decoders: Foundation's `JSONDecoder`, with its
/// failures turned into `RealtimeError`s that name the format and the place in the
/// structure, never the data.
enum LLMWireJSON {
    /// One decoder for every message: `JSONDecoder` is thread-safe and costly to create
    /// (measured: creating one per message halves the decode rate).
    static let decoder = JSONDecoder()

    static func decode<T: Decodable>(_ type: T.Type, from message: Message, format: String) throws(RealtimeError) -> T {
        do {
            return try decoder.decode(T.self, from: Data(message.bytes))
        } catch let error as DecodingError {
            throw RealtimeError(
                .protocolViolation, detail: "\(format): \(describe(error))",
                bodyExcerpt: message.text)
        } catch {
            throw RealtimeError(.protocolViolation, detail: "\(format): the event's data is not valid JSON")
        }
    }

    /// What went wrong and where, from the coding path (our own key names), without values.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            var text = ""
            for key in context.codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "the event's data" : "'\(text)'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context)) has no '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the event's data is not valid JSON" : "\(path(context)) is malformed"
        @unknown default:
            return "the event's data does not have the expected shape"
        }
    }

    /// OpenAI's token breakdowns (`prompt_tokens_details`, `completion_tokens_details`, and
    /// the Responses API's `input_tokens_details`, `output_tokens_details`): the cached and
    /// the reasoning tokens.
    struct TokenDetails: Decodable {
        var cachedTokens: Int?
        var reasoningTokens: Int?

        enum CodingKeys: String, CodingKey {
            case cachedTokens = "cached_tokens"
            case reasoningTokens = "reasoning_tokens"
        }
    }

    /// A string field that only names things: any other JSON value there reads as nil
    /// rather than failing the event.
    struct LenientString: Decodable {
        var value: String?

        init(from decoder: any Decoder) throws {
            value = try? decoder.singleValueContainer().decode(String.self)
        }
    }

    /// `text` when it is a plain identifier (`overloaded_error`, `rate_limit_exceeded`), safe
    /// for an error's detail; nil for anything else a server might put there.
    static func identifier(_ text: String?) -> String? {
        guard let text, (1...64).contains(text.utf8.count) else { return nil }
        let allowed = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                return true
            default:
                return false
            }
        }
        return allowed ? text : nil
    }

    /// The `stream_error` for an error object of `format` whose type (or code) is `type`;
    /// the body excerpt is `body`, by default the event's data.
    static func streamError(format: String, type: String?, message: Message, body: String? = nil) -> RealtimeError {
        return RealtimeError(
            .streamError, detail: identifier(type).map { "\(format) \($0)" } ?? "\(format) error object",
            bodyExcerpt: body ?? message.text)
    }

    /// What an event the decoder skips is called: the data's own type when it is a plain
    /// identifier, else the SSE `event:` type (unless it is the default `message`), else "".
    static func unrecognizedName(_ dataType: String?, _ message: Message) -> String {
        if let name = identifier(dataType) { return name }
        if let type = message.type, type != "message", let name = identifier(type) { return name }
        return ""
    }
}
