import Foundation
import Testing
@testable import RealtimeWebSocket
import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct WebSocketTargetTests {
    @Test func defaultsAndResource() throws {
        let t = try WebSocketTarget(url: URL(string: "ws://example.com")!)
        #expect(t.host == "example.com" && t.port == 80 && !t.secure && t.resource == "/" && t.hostHeader == "example.com")
        let s = try WebSocketTarget(url: URL(string: "wss://example.com:8443/a/b?x=1&y=%20")!)
        #expect(s.secure && s.port == 8443 && s.resource == "/a/b?x=1&y=%20" && s.hostHeader == "example.com:8443")
    }

    @Test func ipv6Literal() throws {
        let t = try WebSocketTarget(url: URL(string: "ws://[::1]:9001/")!)
        #expect(t.host == "::1" && t.port == 9001 && t.hostHeader == "[::1]:9001")
    }

    @Test func rejectsOtherSchemes() {
        #expect(throws: RealtimeError.self) { try WebSocketTarget(url: URL(string: "ftp://x/")!) }
    }
}
