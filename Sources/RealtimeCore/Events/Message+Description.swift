// Short, readable and secret-free descriptions for `print`, logs and debuggers: no header
// value, no request body, no URL credentials or query, durations to the millisecond.

extension Message: CustomStringConvertible {
    /// The longest text shown, in characters; longer text ends with `…` and its size.
    static let describedTextLimit = 80

    /// `"hello" (id 7, type update)`: the text quoted (cut after 80 characters, with its size
    /// in bytes), then the id and the event type when they are set (the SSE default type
    /// `message` is left out); `binary, 1024 bytes` for binary content.
    public var description: String {
        var s: String
        switch content {
        case .text(let text):
            if text.count > Self.describedTextLimit {
                s = "\"\(text.prefix(Self.describedTextLimit))…\" (\(payloadByteCount) bytes)"
            } else {
                s = "\"\(text)\""
            }
        case .binary(let bytes):
            s = "binary, \(bytes.count) bytes"
        }
        var details: [String] = []
        if isComment { details.append("comment") }
        if let id, !id.isEmpty { details.append("id \(id)") }
        if let type, type != "message" { details.append("type \(type)") }
        if !details.isEmpty { s += " (\(details.joined(separator: ", ")))" }
        return s
    }
}
