#if os(Linux)
import RealtimeCore
@testable import RealtimeSSE
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What is refused before any I/O, without a network.
@Suite("SSERequestValidation", .timeLimit(.minutes(1)))
struct SSERequestValidationTests {
    static let url = URL(string: "https://api.example/stream")!

    private func problem(_ proxy: ProxyConfiguration, _ environment: [String: String] = [:]) -> RealtimeError? {
        SSERequestValidation.problem(in: TransportRequest(url: Self.url), proxy: proxy, environment: environment)
    }

    @Test("proxy schemes libcurl speaks pass; others are invalid_configuration, given or from the environment")
    func proxySchemes() {
        for ok in ["http://p:3128", "https://p", "socks5h://p:1080", "SOCKS4A://p", "p:3128", "user:pw@p:3128"] {
            #expect(problem(.url(ok)) == nil, "\(ok)")
        }
        for bad in ["ftp://p:21", "gopher://p", "file:///tmp/x", "ws://p"] {
            #expect(problem(.url(bad))?.code == .invalidConfiguration, "\(bad)")
        }
        #expect(problem(.environment, ["all_proxy": "ftp://user:secret@p"])?.code == .invalidConfiguration)
        #expect(problem(.environment, ["all_proxy": "ftp://user:secret@p"])?.description.contains("secret") == false)
        #expect(problem(.environment, ["https_proxy": "socks5h://p"]) == nil)
        // no_proxy wins: no proxy, nothing to refuse.
        #expect(problem(.environment, ["all_proxy": "ftp://p", "no_proxy": "api.example"]) == nil)
        #expect(problem(.none) == nil)
    }

    @Test("the proxy endpoint named in messages carries no credentials and libcurl's default ports")
    func proxyEndpoint() {
        func endpoint(_ text: String) -> String? { SSERequestValidation.proxyEndpoint(.url(text), url: Self.url, environment: [:]) }
        #expect(endpoint("http://user:secret@10.0.0.1:3128") == "10.0.0.1:3128")
        #expect(endpoint("proxy.local") == "proxy.local:1080")
        #expect(endpoint("https://proxy.local") == "proxy.local:443")
        #expect(endpoint("http://[::1]:8080") == "[::1]:8080")
        #expect(SSERequestValidation.proxyEndpoint(.none, url: Self.url, environment: [:]) == nil)
    }

    @Test("request header fields above 256 KiB are refused; up to it they pass")
    func headerBytes() {
        var request = TransportRequest(url: Self.url)
        request.headers = ["X-Big": String(repeating: "h", count: 200_000)]
        #expect(SSERequestValidation.problem(in: request) == nil)
        request.lastEventID = String(repeating: "7", count: 100_000)
        #expect(SSERequestValidation.problem(in: request)?.code == .invalidConfiguration)
    }
}
#endif
