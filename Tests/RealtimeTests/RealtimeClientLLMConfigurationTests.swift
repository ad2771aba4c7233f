import Foundation
import Realtime
import RealtimeLLM
import Testing

/// The LLM request presets: JSON body from `Data` or an `Encodable`, the bearer token.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientLLMConfigurationTests {
    struct Request: Encodable {
        var model = "m"
        var stream = true
        var temperature = 0.5
    }

    @Test func encodableRequestWithBearerToken() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var extra = HTTPHeaders()
        extra.add(name: "Authorization", value: "Basic replaced")
        extra.add(name: "X-Trace", value: "1")
        let c = try RealtimeClient.Configuration.llm(json: Request(), bearerToken: "sk-secret", headers: extra, encoder: encoder)
        #expect(c.method == "POST")
        #expect(c.body == Array(#"{"model":"m","stream":true,"temperature":0.5}"#.utf8))
        #expect(c.headers["Authorization"] == "Bearer sk-secret")
        #expect(c.headers.fields.filter { $0.name == "Authorization" }.count == 1)
        #expect(c.headers["X-Trace"] == "1")
        #expect(c.headers["Content-Type"] == "application/json")
        #expect(c.reconnect == .finite)
        #expect(c.requestIsRepeatable != true)
    }

    @Test func dataBodyIsTheSameAsBytes() {
        let data = Data(#"{"a":1}"#.utf8)
        let c = RealtimeClient.Configuration.llm(body: data)
        #expect(c.body == Array(data))
        #expect(c.method == "POST")
        #expect(c.headers["Authorization"] == nil)
    }

    /// A model's answer with invalid UTF-8 is an error, not U+FFFD: every preset is strict.
    @Test func everyPresetIsStrictAboutUTF8() throws {
        #expect(RealtimeClient.Configuration().sse.strictUTF8 == false, "the general default stays WHATWG's")
        #expect(RealtimeClient.Configuration.llm(body: [UInt8]()).sse.strictUTF8)
        #expect(RealtimeClient.Configuration.llm(body: Data()).sse.strictUTF8)
        #expect(try RealtimeClient.Configuration.llm(json: Request()).sse.strictUTF8)
    }

    /// A model behind a queue may take minutes to start: every preset gives the server 600 s
    /// for its head once the request is sent, and ends a reply at OpenAI's `[DONE]` by default.
    @Test func everyPresetWaitsTenMinutesForTheHead() throws {
        #expect(RealtimeClient.Configuration().responseTimeout == nil, "the general default: the connect timeout")
        for c in [RealtimeClient.Configuration.llm(body: [UInt8]()), .llm(body: Data()), try .llm(json: Request())] {
            #expect(c.responseTimeout == .seconds(600))
            #expect(c.terminator?.matches(Message(content: .text("[DONE]"))) == true)
            #expect(c.terminator?.delivered == false)
        }
    }

    @Test func anUnencodableRequestIsAConfigurationErrorWithoutItsValues() {
        struct Bad: Encodable {
            var secret = "sk-do-not-show"
            var value = Double.nan
        }
        do {
            _ = try RealtimeClient.Configuration.llm(json: Bad(), bearerToken: "sk-token")
            Issue.record("no error")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(!error.description.contains("sk-"))
            #expect(error.description.contains("Bad"))
        }
    }

    /// The OpenAI Realtime preset rejects a session that is not a JSON object, and does not reconnect by default.
    @Test func theRealtimePresetChecksItsSessionAndDoesNotReconnect() throws {
        for session in ["[1]", #""text""#, "{", ""] {
            do {
                _ = try RealtimeClient.Configuration.openAIRealtime(bearerToken: "sk-secret", session: Array(session.utf8))
                Issue.record("no error for \(session)")
            } catch {
                #expect(error.code == .invalidConfiguration, "\(session)")
                #expect(!error.description.contains("sk-secret"))
            }
        }
        let c = try RealtimeClient.Configuration.openAIRealtime(bearerToken: "sk-secret", session: Array("{}".utf8))
        #expect(c.reconnect == .never)
        #expect(c.onOpen != nil)
    }
}
