import RealtimeCore
import RealtimeLLM
import Testing

/// The Responses resume cursor (`"<response id> <sequence_number>"`), read from each
/// message's top level without decoding it.
@Suite(.timeLimit(.minutes(1))) struct OpenAIResponsesResumeCursorTests {
    static func cursor(_ data: String, _ previous: String?, type: String = "message") -> String? {
        OpenAIResponsesDecoder.resumeCursor(after: .sse(type: type, data: data, id: ""), previous: previous)
    }

    /// The golden text reply, message by message: the id from `response.created`, the
    /// number from every event.
    @Test func followsTheGoldenReply() throws {
        var cursor: String?
        var seen: [String?] = []
        for message in try SSETranscript.messages(OpenAIResponsesDecoderTests.textReply, chunking: .whole) {
            cursor = OpenAIResponsesDecoder.resumeCursor(after: message, previous: cursor)
            seen.append(cursor)
        }
        let id = OpenAIResponsesDecoderTests.id
        #expect(seen == (0...9).map { "\(id) \($0)" })
    }

    @Test func lifecycleEventsGiveTheID() {
        for type in ["response.created", "response.queued", "response.in_progress"] {
            let data = #"{"type":"\#(type)","response":{"object":"response","id":"resp_9","status":"queued","output":[]},"sequence_number":0}"#
            #expect(Self.cursor(data, nil) == "resp_9 0", "\(type)")
        }
        // The id stays when later events carry only numbers.
        #expect(Self.cursor(#"{"type":"response.output_text.delta","delta":"x","sequence_number":7}"#, "resp_9 6") == "resp_9 7")
        // A number without an id yet, an id without a number.
        #expect(Self.cursor(#"{"sequence_number":4}"#, nil) == " 4")
        #expect(Self.cursor(#"{"response":{"id":"resp_2"}}"#, nil) == "resp_2 ")
        #expect(Self.cursor(#"{"response":{"id":"resp_2"}}"#, " 3") == "resp_2 3")
    }

    @Test func nothingKnownIsNilAndNothingNewKeepsThePrevious() {
        #expect(Self.cursor(#"{"type":"response.output_text.delta","delta":"x"}"#, nil) == nil)
        #expect(Self.cursor("not json", nil) == nil)
        #expect(Self.cursor("", "resp_1 5") == "resp_1 5")
        #expect(Self.cursor(#"{"delta":"x"}"#, "resp_1 5") == "resp_1 5")
        // A number that is not a plain integer is not one.
        #expect(Self.cursor(#"{"sequence_number":-1}"#, "resp_1 5") == "resp_1 5")
        #expect(Self.cursor(#"{"sequence_number":"6"}"#, "resp_1 5") == "resp_1 5")
        #expect(Self.cursor(#"{"sequence_number":1e3}"#, "resp_1 5") == "resp_1 5")
        #expect(Self.cursor(#"{"sequence_number":99999999999999999999}"#, "resp_1 5") == "resp_1 5")
    }

    /// Only top-level members count: a `sequence_number` or an `id` inside a string, a
    /// nested object or an array does not move the cursor.
    @Test func nestedAndQuotedFieldsDoNotFoolIt() {
        for data in [
            #"{"delta":"\"sequence_number\":99","sequence_number":8}"#,
            #"{"item":{"sequence_number":99,"x":[{"sequence_number":98}]},"sequence_number":8}"#,
            #"{"list":[1,"a\\",{"sequence_number":99}],"sequence_number":8}"#,
            #"{"delta":"{\"response\":{\"id\":\"resp_evil\"}}","sequence_number":8}"#,
            #"{ "sequence_number" : 8 , "part" : { "response" : { "id" : "resp_evil" } } }"#,
        ] {
            #expect(Self.cursor(data, "resp_1 5") == "resp_1 8", "\(data)")
        }
        // The response's own nested objects do not give the id either.
        #expect(Self.cursor(#"{"response":{"output":[{"id":"msg_1"}],"id":"resp_3"},"sequence_number":0}"#, nil) == "resp_3 0")
        #expect(Self.cursor(#"{"response":{"output":[{"id":"msg_1"}]},"sequence_number":0}"#, nil) == " 0")
        // An id that is not a plain string is not taken.
        #expect(Self.cursor(#"{"response":{"id":"resp\u0031"},"sequence_number":0}"#, nil) == " 0")
        #expect(Self.cursor(#"{"response":{"id":"a b"},"sequence_number":0}"#, nil) == " 0")
    }

    @Test func parsesItsOwnCursors() {
        #expect(OpenAIResponsesDecoder.parseResumeCursor("resp_1 5")! == ("resp_1", 5))
        #expect(OpenAIResponsesDecoder.parseResumeCursor("resp_1 ")! == ("resp_1", nil))
        #expect(OpenAIResponsesDecoder.parseResumeCursor(" 5")! == (nil, 5))
        for bad in ["", " ", "resp_1", "resp_1 x", "resp_1 5 6", "resp_1 -5", "resp_1 99999999999999999999"] {
            #expect(OpenAIResponsesDecoder.parseResumeCursor(bad) == nil, "\(bad)")
        }
    }
}
