#if os(Linux)
import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// The loopback ``TestProxy`` on the wire, through raw sockets: its answers (407 with a
/// challenge, 400, 502), its records (never the secret), its tunnel, and `stop()`.
@Suite(.timeLimit(.minutes(1))) struct TestProxyTests {
    let server: TestServer
    let proxy: TestProxy

    init() throws {
        server = TestServer()
        try server.start()
        proxy = TestProxy(configuration: .init(credentials: ("user", "pw")))
        try proxy.start()
    }

    private var connect: String { "CONNECT 127.0.0.1:\(server.port) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n" }

    /// Sends `text` to the proxy and reads its whole answer (5 s bound per read).
    private func exchange(_ text: String) async throws -> TestServerRawClient.Response {
        let port = proxy.port
        return try await offloaded {
            let client = try TestServerRawClient(port: port)
            client.send(text)
            return client.readToEnd()
        }
    }

    @Test func missingOrWrongCredentialsGet407AndNoSecretIsKept() async throws {
        defer { proxy.stop() }
        let missing = try await exchange(connect + "\r\n")
        #expect(missing.statusCode == 407)
        #expect(missing.header("Proxy-Authenticate") == "Basic realm=\"test-proxy\"")
        #expect(missing.end == .eof)
        // base64("user:nope")
        let wrong = try await exchange(connect + "Proxy-Authorization: Basic dXNlcjpub3Bl\r\n\r\n")
        #expect(wrong.statusCode == 407)
        let records = proxy.requests
        #expect(records.map(\.carriedProxyAuthorization) == [false, true])
        #expect(records.allSatisfy { $0.outcome == .refused(status: 407) && $0.headers["Proxy-Authorization"] == nil })
        #expect(!"\(records)".contains("dXNlcjpub3Bl"))
        #expect(server.requests.isEmpty)
    }

    @Test func malformedOversizedAndOffMachineRequestsAreRefused() async throws {
        defer { proxy.stop() }
        let auth = "Proxy-Authorization: Basic dXNlcjpwdw==\r\n" // user:pw
        #expect(try await exchange("nonsense\r\n\r\n").statusCode == 400)
        #expect(try await exchange("GET /relative HTTP/1.1\r\n\(auth)\r\n").statusCode == 400)
        let huge = "GET http://127.0.0.1/ HTTP/1.1\r\nX-Pad: " + String(repeating: "a", count: 20_000)
        #expect(try await exchange(huge).statusCode == 400)
        for target in ["10.1.2.3:80", "example.com:443"] {
            #expect(try await exchange("CONNECT \(target) HTTP/1.1\r\n\(auth)\r\n").statusCode == 502, "\(target)")
        }
        #expect(server.requests.isEmpty)
    }

    @Test func aTunnelRelaysAndStopClosesIt() async throws {
        let proxy = self.proxy
        let port = proxy.port
        let serverPort = server.port
        let text = connect + "Proxy-Authorization: Basic dXNlcjpwdw==\r\n\r\n"
        // One blocking conversation, off the cooperative pool.
        let (established, first, openWhileTunnelled, stopped) = try await offloaded { () throws -> (String, String, Int, TestServerRawClient.End?) in
            let client = try TestServerRawClient(port: port)
            client.send(text)
            let established = String(decoding: client.read(for: 1000).bytes, as: UTF8.self)
            // Inside the tunnel: an SSE stream that stays open after its event.
            client.send("GET /sse?count=1&end=hold HTTP/1.1\r\nHost: 127.0.0.1:\(serverPort)\r\n\r\n")
            let first = String(decoding: client.read(for: 1000).bytes, as: UTF8.self)
            let open = proxy.openSockets
            proxy.stop()
            return (established, first, open, client.read(for: 3000).end)
        }
        #expect(established == "HTTP/1.1 200 Connection established\r\n\r\n")
        #expect(first.contains("data: event 1"))
        #expect(openWhileTunnelled == 2)
        #expect(stopped == .eof || stopped == .reset)
        #expect(proxy.openSockets == 0)
        #expect(proxy.requests.map(\.outcome) == [.tunnelled])
    }
}
#endif
