import RealtimeCore
import Testing

/// Proxy URLs, the CONNECT request bytes and the reading of the proxy's answer.
@Suite(.timeLimit(.minutes(1))) struct HTTPProxyTests {
    @Test func parsesURLsLikeLibcurl() throws {
        let plain = try HTTPProxy(url: "http://proxy.test:3128")
        #expect(plain.host == "proxy.test" && plain.port == 3128 && plain.authorization == nil)
        let bare = try HTTPProxy(url: "10.0.0.1")
        #expect(bare.host == "10.0.0.1" && bare.port == 1080)
        let v6 = try HTTPProxy(url: "http://[::1]:8080/")
        #expect(v6.host == "::1" && v6.port == 8080)
        #expect(v6.description == "http://[::1]:8080")
        for bad in ["socks5h://127.0.0.1:1080", "https://p.test:443", "http://:80", "http://p.test:70000"] {
            #expect(throws: RealtimeError.self, "\(bad)") { try HTTPProxy(url: bad) }
        }
    }

    @Test func userinfoIsPercentDecodedIntoBasicCredentials() throws {
        // "alice" : "p@ss:w/rd é" → base64("alice:p@ss:w/rd é")
        let proxy = try HTTPProxy(url: "http://alice:p%40ss%3Aw%2Frd%20%C3%A9@127.0.0.1:3128")
        #expect(proxy.authorization == "Basic YWxpY2U6cEBzczp3L3JkIMOp")
        #expect(!proxy.description.contains("YWxp") && !proxy.description.contains("alice"))
        #expect(try HTTPProxy(url: "http://bob@p.test:1").authorization == "Basic Ym9iOg==")
    }

    @Test func connectRequestBytes() throws {
        let proxy = try HTTPProxy(url: "http://u:p@127.0.0.1:3128")
        #expect(String(decoding: proxy.connectRequest(host: "example.com", port: 443), as: UTF8.self)
            == "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nProxy-Authorization: Basic dTpw\r\n\r\n")
        #expect(String(decoding: HTTPProxy(host: "p").connectRequest(host: "::1", port: 80), as: UTF8.self)
            == "CONNECT [::1]:80 HTTP/1.1\r\nHost: [::1]:80\r\n\r\n")
    }

    @Test func answersToConnect() throws {
        var parser = HTTPResponseHeadParser()
        let bytes = Array("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"x\"\r\n\r\n".utf8)
        let head = try #require(try parser.parse(bytes)).head
        let error = try #require(HTTPProxy.tunnelError(for: head))
        #expect(error.code == .proxy && error.status == 407 && error.failureClass == .http)
        #expect(error.detail?.contains("Basic") == true)
        #expect(HTTPProxy.tunnelError(for: HTTPResponseHead(status: 200)) == nil)
        #expect(HTTPProxy.tunnelError(for: HTTPResponseHead(status: 502))?.status == 502)
    }

    @Test func aConfigurationPrintsWithoutThePassword() {
        #expect(ProxyConfiguration.url("http://alice:secret@p.test:3128").description == "url(http://***@p.test:3128)")
        #expect(ProxyConfiguration.url("alice:secret@p.test").description == "url(***@p.test)")
        #expect(ProxyConfiguration.url("http://p.test:3128").description == "url(http://p.test:3128)")
        #expect("\(ProxyConfiguration.environment)" == "environment")
    }
}
