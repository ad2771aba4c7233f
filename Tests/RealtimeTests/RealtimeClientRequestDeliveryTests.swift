#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// A POST (not repeatable) against servers that fail before the response head: once the
/// request may have reached the server it is never sent again; when it cannot have (refused),
/// it is retried. Bounded: the shortest backoff (100 ms), short timeouts, a few attempts.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RealtimeClientRequestDeliveryTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    private func post(_ url: URL, maxAttempts: Int = 6) throws -> RealtimeClient {
        var c = RealtimeClient.Configuration()
        c.method = "POST"
        c.body = Array(#"{"prompt":"bill me once"}"#.utf8)
        c.backoff = .immediate
        c.reconnect = .limited(maxAttempts: maxAttempts)
        c.connectTimeout = .milliseconds(600)
        c.idleTimeout = .seconds(5)
        return try RealtimeClient(url: url, configuration: c)
    }

    private func collect(_ client: RealtimeClient) async -> [ClientEvent] {
        var out: [ClientEvent] = []
        for await e in client.events { out.append(e) }
        return out
    }

    @Test("the server read the POST and closed, reset, or never answered: it receives it exactly once",
          arguments: ["close", "reset", "hold"])
    func neverRePosted(mode: String) async throws {
        defer { server.stop() }
        let events = await collect(try post(server.url("/sse?before_head=\(mode)")))
        let errors = events.compactMap(\.errorEvent)
        #expect(errors.last?.error.code == .requestNotRepeatable, "\(errors.map(\.error))")
        #expect(errors.last?.willRetry == false)
        #expect(server.requests(path: "/sse").count == 1)
        #expect(server.requests(path: "/sse").first?.bodyText == #"{"prompt":"bill me once"}"#)
    }

    @Test("a refused port is still retried: no byte of the POST can have arrived")
    func refusedIsRetried() async throws {
        defer { server.stop() }
        let port = unusedLoopbackPort()
        let events = await collect(try post(URL(string: "http://127.0.0.1:\(port)/sse")!, maxAttempts: 3))
        let errors = events.compactMap(\.errorEvent)
        #expect(errors.count == 3, "\(errors.map(\.error))")
        #expect(errors.dropLast().allSatisfy { $0.willRetry && $0.error.code == .network })
        #expect(errors.last?.error.code == .retriesExhausted)
    }
}

/// A loopback port with nothing listening (bound, then closed).
private func unusedLoopbackPort() -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    return UInt16(bigEndian: addr.sin_port)
}
#endif
