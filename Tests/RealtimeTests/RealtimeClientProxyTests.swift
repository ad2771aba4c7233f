#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// RealtimeClient through the loopback ``TestProxy`` with `Configuration.sse.proxy` and
/// `Configuration.webSocket.proxy`: a stream flows, and a proxy that wants other credentials
/// stops the client at once (407 is a configuration error, never retried).
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RealtimeClientProxyTests {
    let server: TestServer
    /// Demands `u`/`p`.
    let proxy: TestProxy

    init() throws {
        server = TestServer()
        try server.start()
        proxy = TestProxy(configuration: .init(credentials: ("u", "p")))
        try proxy.start()
    }

    private func configuration(_ proxy: URL) -> RealtimeClient.Configuration {
        var c = RealtimeClient.Configuration()
        c.backoff = .immediate
        c.connectTimeout = .seconds(5)
        c.idleTimeout = .seconds(5)
        c.reconnect = ReconnectPolicy(maxAttempts: 5)
        c.sse.proxy = .url(proxy.absoluteString)
        c.webSocket.proxy = .url(proxy.absoluteString)
        return c
    }

    private func collect(_ client: RealtimeClient, limit: Int) async -> [ClientEvent] {
        var out: [ClientEvent] = []
        for await e in client.events {
            out.append(e)
            if out.count >= limit { break }
        }
        return out
    }

    @Test func bothTransportsStreamThroughTheProxy() async throws {
        defer { proxy.stop() }
        let c = configuration(proxy.url(user: "u", password: "p"))
        let runs = [(server.url("/sse?count=2&end=hold&ping_ms=200"), "event"), (server.wsURL("/ws?mode=send&count=2"), "message")]
        for (url, word) in runs {
            let client = try RealtimeClient(url: url, configuration: c)
            let events = await collect(client, limit: 3)
            client.close()
            #expect(events.map(\.short) == ["open(1)", "event(\(word) 1)", "event(\(word) 2)"], "\(url)")
        }
        #expect(proxy.requests.map(\.outcome) == [.forwarded, .tunnelled])
    }

    @Test func a407StopsAtOnceOnBothTransports() async throws {
        defer { proxy.stop() }
        let c = configuration(proxy.url(user: "u", password: "wrong"))
        for url in [server.url("/sse?count=2"), server.wsURL("/ws?mode=send&count=2")] {
            proxy.clearRequests()
            let client = try RealtimeClient(url: url, configuration: c)
            let events = await collect(client, limit: 10)
            #expect(events.map(\.short) == ["error(proxy,stop)"], "\(url)")
            #expect(events.first?.errorEvent?.error.status == 407)
            #expect(proxy.requests.count == 1, "\(url): one attempt, no retry")
        }
        #expect(server.requests.isEmpty)
    }
}
#endif
