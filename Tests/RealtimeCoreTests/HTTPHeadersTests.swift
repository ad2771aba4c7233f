import RealtimeTestSupport
import Testing
@testable import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct HTTPHeadersTests {
    @Test func lookupIgnoresCase() {
        var h: HTTPHeaders = ["Content-Type": "text/event-stream"]
        #expect(h["content-type"] == "text/event-stream")
        h.add(name: "X-A", value: "1")
        h.add(name: "x-a", value: "2")
        #expect(h.values(for: "X-a") == ["1", "2"])
        h.replaceOrAdd(name: "X-A", value: "3")
        #expect(h.values(for: "x-A") == ["3"])
        h.remove(name: "X-A")
        #expect(h["x-a"] == nil)
    }

    @Test func descriptionRedactsSecrets() {
        let h: HTTPHeaders = ["Authorization": "Bearer sk-secret", "Cookie": "session=abc", "X-Api-Key": "k1", "Accept": "text/event-stream"]
        let d = h.description
        #expect(!d.contains("sk-secret"))
        #expect(!d.contains("session=abc"))
        #expect(!d.contains("k1"))
        #expect(d.contains("Accept: text/event-stream"))
    }

    @Test("credential names: the built-in ones, every name with a credential word, and the user's")
    func sensitiveNames() {
        for name in [
            "Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-Authorization", "X-Auth-Key",
            "Ocp-Apim-Subscription-Key", "X-API-KEY", "api_key", "X-Amz-Security-Token", "X-Session-Id",
            "X-Client-Secret", "X-Password", "X-Signature", "OAuth",
        ] {
            #expect(HTTPHeaders.isSensitive(name), "\(name)")
        }
        for name in ["Accept", "Content-Type", "X-Trace", "Last-Event-ID", "User-Agent", "Cache-Control", "X-Request-Id"] {
            #expect(!HTTPHeaders.isSensitive(name), "\(name)")
        }
        #expect(HTTPHeaders.isSensitive("x-tenant", markedSensitive: ["X-Tenant"]))
        #expect(!HTTPHeaders.isSensitive("x-tenant", markedSensitive: ["X-Tenant-Id"]))
        let h: HTTPHeaders = ["X-Auth-Key": "k1", "Ocp-Apim-Subscription-Key": "k2", "X-Tenant": "t", "X-Trace": "abc"]
        #expect(h.removingSensitive(markedSensitive: ["x-tenant"]) == ["X-Trace": "abc"])
        #expect(h.removingSensitive() == ["X-Tenant": "t", "X-Trace": "abc"])
        #expect(!h.description.contains("k1") && !h.description.contains("k2"))
    }

    /// One rule decides both what a redirect to another origin leaves behind and what is
    /// redacted, in header descriptions and in URL queries alike.
    @Test("the credential table: stripped and redacted by one rule, the configured names too")
    func oneRuleForRedirectsAndRedaction() {
        let table = CredentialHeaderTable.self
        let stripped = table.headers.removingSensitive(markedSensitive: table.configured)
        #expect(stripped.fields.map(\.name) == table.kept)
        for name in table.builtIn {
            #expect(HTTPHeaders.isSensitive(name), "\(name)")
            #expect(table.headers.description.contains("\(name): <redacted>"), "\(name)")
            let query = URLRedaction.redacted("https://h/feed?\(name)=\(table.value(of: name))&room=7")
            #expect(query == "https://h/feed?\(name)=***&room=7", "\(name): \(query)")
        }
        for name in table.configuredAsSent {
            #expect(!HTTPHeaders.isSensitive(name) && HTTPHeaders.isSensitive(name, markedSensitive: table.configured))
        }
        for name in table.kept {
            #expect(!HTTPHeaders.isSensitive(name, markedSensitive: table.configured), "\(name)")
            #expect(URLRedaction.redacted("https://h/feed?\(name)=v") == "https://h/feed?\(name)=v")
        }
        for name in ["sig", "PWD", "pass", "passwd", "jwt"] {
            #expect(HTTPHeaders.isSensitive(name), "\(name): a short credential name is one as a header too")
        }
        for name in ["Signal", "Passage", "Pwdx", "X-Jwtish"] {
            #expect(!HTTPHeaders.isSensitive(name), "\(name): short names count only whole")
        }
    }
}
