#if os(Linux)
import RealtimeCore
import RealtimeTestSupport
import Testing
@testable import RealtimeIO

/// The `CONNECT` exchange without a socket (RFC 9110 §9.3.6), in every chunking.
@Suite(.timeLimit(.minutes(1))) struct ProxyTunnelTests {
    static let proxy = HTTPProxy(host: "proxy.example", port: 3128, authorization: "Basic dTpw")

    static func answer(_ text: String, chunking: Chunking) -> ProxyTunnel.Outcome? {
        var tunnel = ProxyTunnel(proxy: proxy, host: "origin.example", port: 443)
        let bytes = Array(text.utf8)
        for chunk in chunking.split(bytes) {
            if let outcome = Array(chunk).withUnsafeBytes({ tunnel.receive($0) }) { return outcome }
        }
        return nil
    }

    @Test func requestAsksForTheOriginWithCredentials() {
        let tunnel = ProxyTunnel(proxy: Self.proxy, host: "::1", port: 8443)
        #expect(String(decoding: tunnel.request, as: UTF8.self)
            == "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nProxy-Authorization: Basic dTpw\r\n\r\n")
    }

    @Test(arguments: Chunking.all)
    func twoHundredOpensTheTunnelAndKeepsTheOriginsBytes(chunking: Chunking) {
        guard case .established(let leftover) = Self.answer("HTTP/1.1 200 Connection established\r\n\r\n\u{16}\u{03}", chunking: chunking) else {
            Issue.record("expected the tunnel")
            return
        }
        // Bytes behind the head that arrived in the same chunk belong to the origin.
        if case .whole = chunking { #expect(leftover == [0x16, 0x03]) }
    }

    @Test func headNotCompleteYetNeedsMore() {
        #expect(Self.answer("HTTP/1.1 200 OK\r\n", chunking: .whole) == nil)
    }

    @Test(arguments: Chunking.all)
    func refusalNamesTheStatusAndTheChallengeNotTheCredential(chunking: Chunking) {
        let text = "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\n\r\n"
        guard case .refused(let error) = Self.answer(text, chunking: chunking) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(error.code == .proxy && error.status == 407)
        #expect(error.description.contains("Basic"))
        #expect(!error.description.contains("dTpw"))
    }

    @Test func malformedAnswerIsAProxyError() {
        guard case .refused(let error) = Self.answer("SSH-2.0-OpenSSH\r\n\r\n", chunking: .whole) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(error.code == .proxy)
    }
}
#endif
