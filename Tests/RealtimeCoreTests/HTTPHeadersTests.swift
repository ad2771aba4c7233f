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
}
