import Foundation
import RealtimeMCP

/// `--elicit ask`: a server's elicitation (form mode) asked on the terminal. The message and
/// each question go to standard error (standard output stays JSON lines); the answers come
/// from standard input, one line each. The first answer is the action (`accept`, `decline` or
/// `cancel`; an empty line accepts); with `accept`, each field of the requested schema follows,
/// converted to its type (`boolean`: y/yes/true or n/no/false; `number`, `integer`; a
/// string's `enum` must match). An empty line leaves an optional field out; an answer that does
/// not fit is asked again, at most three times. End of input cancels.
enum ElicitationPrompt {
    /// A question of the form: a property of `requestedSchema`.
    struct Field: Equatable {
        var name: String
        var type: String
        var choices: [String]
        var required: Bool
        var title: String?
    }

    static func answer(_ params: JSONValue?) async -> JSONValue {
        let message = params?["message"]?.stringValue ?? "The server asks for input."
        say("\(message)\n  action (accept, decline, cancel) [accept]: ")
        guard let action = await line() else { return ["action": "cancel"] }
        switch action.lowercased() {
        case "", "a", "accept": break
        case "d", "decline": return ["action": "decline"]
        default: return ["action": "cancel"]
        }
        var content: [String: JSONValue] = [:]
        for field in fields(of: params?["requestedSchema"]) {
            guard let value = await ask(field) else { return ["action": "cancel"] }
            if let value { content[field.name] = value }
        }
        return ["action": "accept", "content": .object(content)]
    }

    /// The schema's properties, in name order (JSON objects keep none), required ones marked.
    static func fields(of schema: JSONValue?) -> [Field] {
        let required = Set((schema?["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        let properties = schema?["properties"]?.objectValue ?? [:]
        return properties.keys.sorted().map { name in
            let p = properties[name]
            return Field(
                name: name, type: p?["type"]?.stringValue ?? "string",
                choices: (p?["enum"]?.arrayValue ?? []).compactMap(\.stringValue),
                required: required.contains(name), title: p?["title"]?.stringValue)
        }
    }

    /// The field's value from the user; `.some(nil)` leaves it out, nil cancels (end of input
    /// or three answers that do not fit).
    private static func ask(_ field: Field) async -> JSONValue?? {
        for _ in 0..<3 {
            var hint = field.type
            if !field.choices.isEmpty { hint = field.choices.joined(separator: "|") }
            say("  \(field.title ?? field.name) (\(hint)\(field.required ? ", required" : "")): ")
            guard let text = await line() else { return nil }
            if text.isEmpty, !field.required { return .some(nil) }
            if let value = convert(text, to: field) { return .some(value) }
            say("  not a \(hint)\n")
        }
        return nil
    }

    /// `text` as the field's type, or nil when it does not fit.
    static func convert(_ text: String, to field: Field) -> JSONValue? {
        switch field.type {
        case "boolean":
            switch text.lowercased() {
            case "y", "yes", "true": return .bool(true)
            case "n", "no", "false": return .bool(false)
            default: return nil
            }
        case "number":
            return Double(text).map(JSONValue.number)
        case "integer":
            return Int(text).map { .number(Double($0)) }
        default:
            guard field.choices.isEmpty || field.choices.contains(text) else { return nil }
            return text.isEmpty ? nil : .string(text)
        }
    }

    private static func say(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// The next line of standard input, read on a thread of its own (a blocking read must not
    /// hold one of the few threads the client's tasks run on); nil at its end.
    private static func line() async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: readLine(strippingNewline: true).map {
                    $0.trimmingCharacters(in: .whitespaces)
                })
            }
        }
    }
}
