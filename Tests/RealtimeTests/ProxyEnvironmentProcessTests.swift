#if os(Linux)
import Foundation
import RealtimeTestServer
import Testing

/// The proxy environment variables, end to end, for both transports: `rtcat` runs in a child
/// process with a chosen environment (never `setenv` here: the environment is process-wide
/// and other suites run in parallel) through the loopback ``TestProxy``. SSE follows libcurl's
/// own rules and WebSocket our ``ProxyEnvironment``; the same table must hold for both.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ProxyEnvironmentProcessTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Variables set for the child; `{P}` becomes the proxy's URL.
        var variables: [String: String]
        var extraArguments: [String] = []
        /// Use `localhost` instead of 127.0.0.1 in the URL.
        var byName = false
        var proxied: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "http_proxy", variables: ["http_proxy": "{P}"], proxied: true),
        Case(name: "HTTP_PROXY alone is ignored (httpoxy)", variables: ["HTTP_PROXY": "{P}"], proxied: false),
        Case(name: "all_proxy", variables: ["all_proxy": "{P}"], proxied: true),
        Case(name: "ALL_PROXY", variables: ["ALL_PROXY": "{P}", "HTTP_PROXY": "http://127.0.0.1:1"], proxied: true),
        Case(name: "no_proxy names the host", variables: ["http_proxy": "{P}", "no_proxy": "example.test,127.0.0.1"], proxied: false),
        Case(name: "NO_PROXY by name", variables: ["http_proxy": "{P}", "NO_PROXY": "localhost"], byName: true, proxied: false),
        Case(name: "no_proxy=*", variables: ["all_proxy": "{P}", "no_proxy": "*"], proxied: false),
        Case(name: "no_proxy not matching", variables: ["http_proxy": "{P}", "no_proxy": ".example.test,127.0.0.2"], proxied: true),
        Case(name: "--no-proxy ignores the environment", variables: ["http_proxy": "{P}", "all_proxy": "{P}"], extraArguments: ["--no-proxy"], proxied: false),
    ]

    static let secureCases: [Case] = [
        Case(name: "https_proxy", variables: ["https_proxy": "{P}"], proxied: true),
        Case(name: "HTTPS_PROXY", variables: ["HTTPS_PROXY": "{P}"], proxied: true),
        Case(name: "http_proxy does not apply to TLS", variables: ["http_proxy": "{P}"], proxied: false),
        Case(name: "no_proxy with https_proxy", variables: ["https_proxy": "{P}", "no_proxy": "localhost"], byName: true, proxied: false),
    ]

    static let certificates: TestCertificates = {
        try! TestCertificates.shared()
    }()

    /// This process's environment without any proxy variable, plus `variables`.
    static func environment(_ variables: [String: String], proxy: TestProxy) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            env[name] = nil
        }
        for (name, value) in variables { env[name] = value.replacingOccurrences(of: "{P}", with: proxy.url.absoluteString) }
        return env
    }

    func check(_ c: Case, secure: Bool) async throws {
        let server = TestServer(configuration: .init(tls: secure ? .init(certificates: Self.certificates) : nil))
        try server.start()
        defer { server.stop() }
        let proxy = TestProxy()
        try proxy.start()
        defer { proxy.stop() }
        let host = c.byName ? "localhost" : "127.0.0.1"
        let tlsArguments = secure ? ["--cacert", Self.certificates.caCertificateFile] : []
        let env = Self.environment(c.variables, proxy: proxy)
        let sse = "\(secure ? "https" : "http")://\(host):\(server.port)/sse?count=5"
        let ws = "\(secure ? "wss" : "ws")://\(host):\(server.port)/ws?mode=send&count=5"
        for url in [sse, ws] {
            proxy.clearRequests()
            let r = try await RtcatTests().rtcat(
                ["--count", "2", "--no-reconnect", "--connect-timeout", "5"] + tlsArguments + c.extraArguments + [url],
                timeout: 20, environment: env)
            #expect(r.status == 0, "\(c.name) \(url): \(r.stderr) \(r.stdout)")
            #expect(r.kinds() == ["open", "event", "event"], "\(c.name) \(url)")
            let seen = proxy.requests
            if c.proxied {
                #expect(seen.count == 1, "\(c.name) \(url): the proxy saw \(seen.map(\.requestLine))")
                let viaConnect = secure || url == ws
                #expect(seen.first?.outcome == (viaConnect ? .tunnelled : .forwarded), "\(c.name) \(url)")
            } else {
                #expect(seen.isEmpty, "\(c.name) \(url): the proxy saw \(seen.map(\.requestLine))")
            }
        }
    }

    @Test(arguments: cases) func plainSchemes(_ c: Case) async throws {
        try await check(c, secure: false)
    }

    @Test(arguments: secureCases) func tlsSchemes(_ c: Case) async throws {
        try await check(c, secure: true)
    }
}
#endif
