import RealtimeCore
import Testing

/// Which proxy the environment names for a request, by libcurl's rules.
@Suite(.timeLimit(.minutes(1))) struct ProxyEnvironmentTests {
    @Test func schemesPickTheirVariables() {
        let env = ProxyEnvironment(["http_proxy": "http://h:1", "https_proxy": "http://s:2"])
        #expect(env.proxy(scheme: "http", host: "a.test") == "http://h:1")
        #expect(env.proxy(scheme: "ws", host: "a.test") == "http://h:1")
        #expect(env.proxy(scheme: "https", host: "a.test") == "http://s:2")
        #expect(env.proxy(scheme: "WSS", host: "a.test") == "http://s:2")
    }

    @Test func upperCaseHTTPProxyIsIgnoredButHTTPSProxyAndAllProxyAreNot() {
        let upper = ProxyEnvironment(["HTTP_PROXY": "http://h:1", "HTTPS_PROXY": "http://s:2"])
        #expect(upper.proxy(scheme: "ws", host: "a.test") == nil)
        #expect(upper.proxy(scheme: "wss", host: "a.test") == "http://s:2")
        // Lowercase wins when both are set.
        let both = ProxyEnvironment(["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2"])
        #expect(both.proxy(scheme: "wss", host: "a.test") == "http://lower:1")
        let all = ProxyEnvironment(["ALL_PROXY": "http://all:3", "HTTP_PROXY": "http://h:1"])
        #expect(all.proxy(scheme: "ws", host: "a.test") == "http://all:3")
        #expect(all.proxy(scheme: "wss", host: "a.test") == "http://all:3")
        let allLower = ProxyEnvironment(["all_proxy": "http://lower:4", "ALL_PROXY": "http://upper:5"])
        #expect(allLower.proxy(scheme: "ws", host: "a.test") == "http://lower:4")
    }

    @Test func noProxyWinsAndEmptyValuesAreUnset() {
        let env = ProxyEnvironment(["http_proxy": "http://h:1", "https_proxy": "", "all_proxy": "http://all:3", "NO_PROXY": ".local.test,127.0.0.1"])
        #expect(env.proxy(scheme: "ws", host: "db.local.test") == nil)
        #expect(env.proxy(scheme: "ws", host: "127.0.0.1") == nil)
        #expect(env.proxy(scheme: "ws", host: "other.test") == "http://h:1")
        // An empty https_proxy falls through to all_proxy.
        #expect(env.proxy(scheme: "wss", host: "other.test") == "http://all:3")
        // Lowercase no_proxy wins over NO_PROXY.
        let lower = ProxyEnvironment(["http_proxy": "http://h:1", "no_proxy": "a.test", "NO_PROXY": "*"])
        #expect(lower.proxy(scheme: "ws", host: "b.test") == "http://h:1")
        #expect(lower.proxy(scheme: "ws", host: "a.test") == nil)
        #expect(ProxyEnvironment([:]).proxy(scheme: "ws", host: "a.test") == nil)
    }
}
