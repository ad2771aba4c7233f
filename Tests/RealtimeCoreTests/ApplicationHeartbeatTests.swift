import RealtimeCore
import RealtimeJSON
import Testing

/// `ApplicationHeartbeat.text(ping:pong:)`: the reply matches as JSON when the expected text
/// is JSON (any spacing, any member order), byte for byte otherwise.
@Suite(.timeLimit(.minutes(1))) struct ApplicationHeartbeatTests {
    static func message(_ text: String) -> Message { Message(content: .text(text)) }

    @Test("JSON replies match whatever their spacing and member order", arguments: [
        #"{"op":"pong"}"#, #"{"op": "pong"}"#, #"{ "op" : "pong" }"#, "\n{\"op\":\t\"pong\"}\r\n",
        #"{"op":"\u0070ong"}"#,
    ])
    func jsonReplyMatches(_ reply: String) {
        let heartbeat = ApplicationHeartbeat.text(ping: #"{"op":"ping"}"#, pong: #"{"op":"pong"}"#)
        #expect(heartbeat.isReply(Self.message(reply)), "\(reply)")
    }

    @Test("member order, nesting and numbers by value")
    func jsonStructure() {
        let heartbeat = ApplicationHeartbeat.text(ping: "{}", pong: #"{"type":"pong","seq":[1,2.0,{"a":null}],"ok":true}"#)
        #expect(heartbeat.isReply(Self.message(#"{"ok": true, "seq": [1.0, 2, {"a": null}], "type": "pong"}"#)))
        #expect(heartbeat.isReply(Self.message(#"{"ok":true,"seq":[1,2e0,{"a":null}],"type":"pong"}"#)))
        #expect(!heartbeat.isReply(Self.message(#"{"ok": true, "seq": [2, 1, {"a": null}], "type": "pong"}"#)), "array order matters")
        #expect(!heartbeat.isReply(Self.message(#"{"ok": false, "seq": [1, 2, {"a": null}], "type": "pong"}"#)))
    }

    @Test("other JSON, broken JSON and other text do not match", arguments: [
        #"{"op":"pong","n":1}"#, #"{"op":"Pong"}"#, #"{"op":"pong"#, #"{"op":"pong"}x"#, #"["op","pong"]"#,
        #"{"op":'pong'}"#, "pong", "", #"{"op":"pong",}"#, #"{"op":"pong"}{"op":"pong"}"#,
    ])
    func nonReplies(_ text: String) {
        let heartbeat = ApplicationHeartbeat.text(ping: #"{"op":"ping"}"#, pong: #"{"op":"pong"}"#)
        #expect(!heartbeat.isReply(Self.message(text)), "\(text)")
    }

    @Test("a binary message is never the text reply")
    func binaryIsNotAReply() {
        let heartbeat = ApplicationHeartbeat.text(ping: "ping", pong: "pong")
        #expect(!heartbeat.isReply(Message(content: .binary(Array("pong".utf8)))))
    }

    @Test("text that is not JSON matches byte for byte only")
    func plainTextIsExact() {
        let heartbeat = ApplicationHeartbeat.text(ping: "ping", pong: "pong")
        #expect(heartbeat.isReply(Self.message("pong")))
        #expect(!heartbeat.isReply(Self.message(" pong")))
        #expect(!heartbeat.isReply(Self.message("PONG")))
        // Canonically equivalent but other bytes (precomposed é vs e + U+0301): not the reply.
        let composed = ApplicationHeartbeat.text(ping: "ping", pong: "caf\u{E9}")
        #expect(!composed.isReply(Self.message("cafe\u{301}")))
        // A JSON string compares as JSON too: escapes resolved.
        let quoted = ApplicationHeartbeat.text(ping: "ping", pong: #""pong""#)
        #expect(quoted.isReply(Self.message(#" "p\u006fng" "#)))
    }

    @Test("server pings are recognised the same way and answered with the pong text")
    func responderMatchesAsJSON() throws {
        let heartbeat = ApplicationHeartbeat.text(ping: #"{"op":"ping"}"#, pong: #"{"op":"pong"}"#, answersServerPings: true)
        let responder = try #require(heartbeat.responder)
        #expect(responder(Self.message(#"{ "op": "ping" }"#)) == .text(#"{"op":"pong"}"#))
        #expect(responder(Self.message(#"{"op":"data"}"#)) == nil)
        #expect(ApplicationHeartbeat.text(ping: "p", pong: "q").responder == nil)
    }

    @Test("a long message is not parsed: it is not the reply")
    func longMessagesAreNotReplies() {
        let heartbeat = ApplicationHeartbeat.text(ping: #"{"op":"ping"}"#, pong: #"{"op":"pong"}"#)
        let padded = "{\"op\":\"pong\"" + String(repeating: " ", count: 2000) + "}"
        #expect(!heartbeat.isReply(Self.message(padded)))
        let spaced = "{\"op\":\"pong\"" + String(repeating: " ", count: 500) + "}"
        #expect(heartbeat.isReply(Self.message(spaced)))
    }

    @Test("deep nesting is bounded: no crash, no match")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONValue.parse(deep, maxDepth: 64) == nil)
        let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect(JSONValue.equivalent(ok, ok.map { " \($0)\n" }.joined(), maxDepth: 64))
    }

    @Test("the JSON parser follows RFC 8259", arguments: [
        ("0", true), ("-0.5e+3", true), ("01", false), ("1.", false), (".5", false), ("+1", false),
        (#""a\nb""#, true), (#""a\qb""#, false), ("\"a\u{01}b\"", false), (#""\ud83d\ude00""#, true),
        ("true", true), ("tru", false), ("nul", false), ("[1,]", false), ("{\"a\":1,\"a\":2}", true), ("", false),
    ])
    func parserGrammar(_ text: String, _ valid: Bool) {
        #expect((JSONValue.parse(text) != nil) == valid, "\(text)")
    }

    @Test func surrogatePairsAndDuplicates() {
        #expect(JSONValue.equivalent(#""\ud83d\ude00""#, "\"\u{1F600}\""))
        #expect(JSONValue.equivalent(#"{"a":1,"a":2}"#, #"{"a":2}"#), "the last duplicate wins")
    }

    /// The same text both ways cannot answer server pings: each answer would look like a ping.
    @Test("ping and pong the same message with answersServerPings is refused")
    func samePingAndPongAnsweringIsRefused() async {
        await #expect(processExitsWith: .failure) {
            _ = ApplicationHeartbeat.text(ping: "hb", pong: "hb", answersServerPings: true)
        }
        await #expect(processExitsWith: .failure) {
            _ = ApplicationHeartbeat.text(ping: #"{"type":"hb"}"#, pong: #"{ "type": "hb" }"#, answersServerPings: true)
        }
        #expect(ApplicationHeartbeat.text(ping: "hb", pong: "hb").isReply(Self.message("hb")), "without answering it is fine")
    }
}
