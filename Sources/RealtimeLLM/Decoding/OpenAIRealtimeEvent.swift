#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore
import RealtimeJSON

/// The client events an app sends in an OpenAI Realtime session (OpenAI API reference,
/// "Realtime client events"), as messages for `RealtimeClient.send`.
///
/// ```swift
/// try await client.send(OpenAIRealtimeEvent.userMessage("What is the weather in Paris?"))
/// try await client.send(OpenAIRealtimeEvent.createResponse())
/// ```
public enum OpenAIRealtimeEvent {
    /// `session.update` with `session`, the session's configuration as a JSON object
    /// (`{"type":"realtime","instructions":…,"tools":[…]}`).
    ///
    /// - Throws: `RealtimeError` `invalid_configuration` when `session` is not a JSON object.
    public static func sessionUpdate(session: [UInt8]) throws(RealtimeError) -> OutboundMessage {
        let text = String(decoding: session, as: UTF8.self)
        guard case .object = JSONValue.parse(text) else {
            throw RealtimeError(.invalidConfiguration, detail: "the Realtime session configuration is not a JSON object")
        }
        return .text(#"{"type":"session.update","session":\#(text)}"#)
    }

    /// `conversation.item.create` of a user message with one `input_text` part.
    public static func userMessage(_ text: String) -> OutboundMessage {
        .text(#"{"type":"conversation.item.create","item":{"type":"message","role":"user","content":[{"type":"input_text","text":\#(JSONString.quoted(text))}]}}"#)
    }

    /// `conversation.item.create` of a `function_call_output` item: the result of the call
    /// `callID` (``LLMToolCall/id``), usually JSON text.
    public static func functionCallOutput(callID: String, output: String) -> OutboundMessage {
        .text(#"{"type":"conversation.item.create","item":{"type":"function_call_output","call_id":\#(JSONString.quoted(callID)),"output":\#(JSONString.quoted(output))}}"#)
    }

    /// `response.create`: asks the model to respond to the conversation so far (with server
    /// voice activity detection the server starts responses on its own).
    public static func createResponse() -> OutboundMessage {
        .text(#"{"type":"response.create"}"#)
    }

    /// `response.cancel`: stops the response in progress; its `response.done` then says
    /// `cancelled` (``LLMDelta/finish(_:)`` `client_cancelled`).
    public static func cancelResponse() -> OutboundMessage {
        .text(#"{"type":"response.cancel"}"#)
    }

    /// `input_audio_buffer.append` of `bytes` (in the session's input format, PCM16 at
    /// 24 kHz by default), sent in base64.
    public static func appendAudio(_ bytes: [UInt8]) -> OutboundMessage {
        .text(#"{"type":"input_audio_buffer.append","audio":"\#(Data(bytes).base64EncodedString())"}"#)
    }

    /// `input_audio_buffer.commit`: the appended audio becomes a user message (without
    /// server voice activity detection).
    public static func commitAudio() -> OutboundMessage {
        .text(#"{"type":"input_audio_buffer.commit"}"#)
    }
}

extension OpenAIRealtimeEvent {
    /// The server event's top-level `type` (nil when the message is no JSON object with a
    /// plain string `type`), scanned without decoding the event.
    package static func type(of message: Message) -> String? {
        message.withPayloadBytes { buffer in
            LLMJSONScanner.string("type", in: buffer).map { String(decoding: UnsafeBufferPointer(rebasing: $0), as: UTF8.self) }
        }
    }

    /// The error a server `error` event reports (as ``OpenAIRealtimeDecoder`` decodes it),
    /// nil for any other event.
    package static func error(in message: Message) -> RealtimeError? {
        guard type(of: message) == "error" else { return nil }
        var decoder = OpenAIRealtimeDecoder()
        do {
            for case .error(let failure) in try decoder.decode(message) { return failure }
            return nil
        } catch {
            return error
        }
    }
}
