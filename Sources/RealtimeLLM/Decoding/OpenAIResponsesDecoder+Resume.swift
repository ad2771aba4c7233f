import RealtimeCore

extension OpenAIResponsesDecoder {
    /// The resume cursor after `message`, given the cursor before it: `"<response id>
    /// <sequence_number>"`, to resume a cut stream with `GET /v1/responses/{id}?stream=true&
    /// starting_after={sequence_number}` (OpenAI API reference, "Retrieve a model response").
    ///
    /// The id comes from the `response` object that the lifecycle events carry
    /// (`response.created`, `response.queued`, `response.in_progress`, …), the number from
    /// every event's top-level `sequence_number`; a part this message does not carry is kept
    /// from `previous`, and a part not known yet is empty (`"resp_1 "`, `" 7"`). nil while
    /// neither is known. Runs on the I/O thread for every message: the data is scanned once,
    /// not decoded, and only top-level members count (a `sequence_number` inside a nested
    /// object or a string does not).
    package static func resumeCursor(after message: Message, previous: String?) -> String? {
        var id: String?
        var sequence: Int?
        message.withPayloadBytes { buffer in
            LLMJSONScanner.members(of: buffer) { key, value in
                if LLMJSONScanner.equal(key, "sequence_number") {
                    if let n = LLMJSONScanner.integer(value) { sequence = n }
                } else if LLMJSONScanner.equal(key, "response"), let found = responseID(in: value) {
                    id = found
                }
                return true
            }
        }
        // Most events carry a number and no id: the previous id is kept as it is, without
        // parsing the whole cursor again.
        guard id != nil || sequence != nil else { return previous }
        let known = previous?.firstIndex(of: " ").map { (previous![..<$0], previous![previous!.index(after: $0)...]) }
        let idText = id.map { Substring($0) } ?? known?.0 ?? ""
        let number = sequence.map { String($0) } ?? known.map { String($0.1) } ?? ""
        return idText + " " + number
    }

    /// The parts of a cursor made by `resumeCursor(after:previous:)`: nil for a string that
    /// is not one (no space, a number that is not one, an id with spaces).
    package static func parseResumeCursor(_ cursor: String) -> (responseID: String?, sequenceNumber: Int?)? {
        let parts = cursor.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].contains(" ") else { return nil }
        let id = parts[0].isEmpty ? nil : String(parts[0])
        guard parts[1].isEmpty || parts[1].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        let sequence = parts[1].isEmpty ? nil : Int(parts[1])
        guard id != nil || sequence != nil, parts[1].isEmpty || sequence != nil else { return nil }
        return (id, sequence)
    }

    /// The `id` member of the `response` object `value`, when it is a plain string.
    private static func responseID(in value: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        guard value.first == UInt8(ascii: "{") else { return nil }
        let object = UnsafeBufferPointer(rebasing: value)
        guard let id = LLMJSONScanner.string("id", in: object), !id.isEmpty, !id.contains(UInt8(ascii: " ")) else {
            return nil
        }
        return String(decoding: UnsafeBufferPointer(rebasing: id), as: UTF8.self)
    }
}
