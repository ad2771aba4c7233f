import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import RealtimeTestServer
import RealtimeWebSocket

/// Credentials and redirects against the in-repo ``TestServer``: URL userinfo sent as
/// `Authorization: Basic` the way the SSE transport (libcurl) sends it, never to another
/// origin, never in an event or error; `wss` → `ws` redirects refused unless allowed.
@Suite(.serialized, .timeLimit(.minutes(1))) struct WebSocketCredentialTests {
    static func server(tls: Bool = false) throws -> TestServer {
        let server = TestServer(configuration: TestServer.Configuration(
            tls: tls ? TestServer.Configuration.TLS(certificates: try TestCertificates.shared()) : nil))
        try server.start()
        return server
    }

    /// `ws://user:pw@host/…` for `url`, with the userinfo as given (percent-encoded).
    static func withUserInfo(_ url: URL, _ userInfo: String) -> URL {
        URL(string: url.absoluteString.replacingOccurrences(of: "://", with: "://\(userInfo)@"))!
    }

    static func basic(_ plain: String) -> String { "Basic " + Data(plain.utf8).base64EncodedString() }

    @Test func urlCredentialsAreSentAsBasicAuthorizationAndNeverShown() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            // Percent-decoded like libcurl: "us%65r" is "user", "p%40ss" is "p@ss".
            let probe = TransportProbe(Self.withUserInfo(server.wsURL("/ws"), "us%65r:p%40ss"))
            let info = try #require(await probe.opened())
            #expect(info.url.user == nil && info.url.password == nil, "no credentials in the opened event")
            #expect(!String(describing: info).contains("p%40ss") && !String(describing: info).contains("p@ss"))
            probe.transport.close()
            _ = await probe.ended()
            let seen = try #require(server.requests(path: "/ws").first)
            #expect(seen.headers["Authorization"] == Self.basic("user:p@ss"))
            #expect(!seen.target.contains("p%40ss"), "userinfo is not part of the request target")
            #expect(seen.headers["Host"]?.contains("@") == false)
        }
    }

    @Test func aUserWithoutPasswordAndAnExplicitHeader() async throws {
        let server = try Self.server()
        defer { server.stop() }
        try await withDeadline {
            let bare = TransportProbe(Self.withUserInfo(server.wsURL("/ws?n=1"), "alice"))
            _ = try #require(await bare.opened())
            bare.transport.close()
            _ = await bare.ended()
            // The user's own Authorization header wins over the URL's (as with libcurl).
            let explicit = TransportProbe(Self.withUserInfo(server.wsURL("/ws?n=2"), "alice:pw")) {
                $0.headers = ["Authorization": "Bearer t0ken"]
            }
            _ = try #require(await explicit.opened())
            explicit.transport.close()
            _ = await explicit.ended()
            let seen = server.requests(path: "/ws")
            #expect(seen.map { $0.headers.values(for: "Authorization") } == [[Self.basic("alice:")], ["Bearer t0ken"]])
        }
    }

    /// URL credentials follow a same-origin redirect and stay behind on another origin, with
    /// every header the user marked sensitive.
    @Test func urlCredentialsStayOnTheirOrigin() async throws {
        let server = try Self.server()
        let other = try Self.server()
        defer { server.stop(); other.stop() }
        let elsewhere = other.wsURL("/ws").absoluteString
        server.setHandler(path: "/away") { writer in
            try writer.writeHead(status: 307, headers: ["Location": elsewhere], framing: .contentLength(0))
            try writer.finish()
        }
        server.setHandler(path: "/near") { writer in
            try writer.writeHead(status: 302, headers: ["Location": "/ws?same=1"], framing: .contentLength(0))
            try writer.finish()
        }
        try await withDeadline {
            for path in ["/away", "/near"] {
                let probe = TransportProbe(Self.withUserInfo(server.wsURL(path), "u:pw")) {
                    $0.headers = ["X-Tenant": "t1", "X-Trace": "abc"]
                    $0.sensitiveHeaderNames = ["x-tenant"]
                }
                _ = try #require(await probe.opened(), "\(path)")
                probe.transport.close()
                _ = await probe.ended()
            }
            let away = try #require(other.requests(path: "/ws").first)
            #expect(away.headers["Authorization"] == nil && away.headers["X-Tenant"] == nil)
            #expect(away.headers["X-Trace"] == "abc")
            let near = try #require(server.requests(path: "/ws").first)
            #expect(near.query["same"] == "1")
            #expect(near.headers["Authorization"] == Self.basic("u:pw") && near.headers["X-Tenant"] == "t1")
        }
    }

    /// The credential table through real handshake redirects (the WebSocket transport follows
    /// a 3xx with `Location` as SSE does): every credential name, built in or configured,
    /// reaches the first origin and a same-origin redirect, and not another origin; the
    /// harmless names go everywhere.
    @Test func credentialTableThroughRedirects() async throws {
        let server = try Self.server()
        let other = try Self.server()
        defer { server.stop(); other.stop() }
        let elsewhere = other.wsURL("/ws?away=1").absoluteString
        server.setHandler(path: "/away") { writer in
            try writer.writeHead(status: 302, headers: ["Location": elsewhere], framing: .contentLength(0))
            try writer.finish()
        }
        server.setHandler(path: "/near") { writer in
            try writer.writeHead(status: 302, headers: ["Location": "/ws?near=1"], framing: .contentLength(0))
            try writer.finish()
        }
        let table = CredentialHeaderTable.self
        try await withDeadline {
            for path in ["/away", "/near"] {
                let probe = TransportProbe(server.wsURL(path)) {
                    $0.headers = table.headers
                    $0.sensitiveHeaderNames = table.configured
                }
                _ = try #require(await probe.opened(), "\(path)")
                probe.transport.close()
                _ = await probe.ended()
            }
        }
        let first = try #require(server.requests(path: "/away").first)
        let near = try #require(server.requests(path: "/ws").first)
        let away = try #require(other.requests(path: "/ws").first)
        let violations = table.violations(first: first.headers, sameOrigin: near.headers, otherOrigin: away.headers)
        #expect(violations.isEmpty, "\(violations)")
    }

    /// A `wss` handshake redirected to `ws`: refused by default (nothing reaches the plain
    /// server), followed with `allowsInsecureRedirects`.
    @Test func secureToPlainRedirectIsRefusedUnlessAllowed() async throws {
        let secure = try Self.server(tls: true)
        let plain = try Self.server()
        defer { secure.stop(); plain.stop() }
        let target = plain.wsURL("/ws").absoluteString
        secure.setHandler(path: "/downgrade") { writer in
            try writer.writeHead(status: 302, headers: ["Location": target], framing: .contentLength(0))
            try writer.finish()
        }
        var trust = TLSConfiguration()
        trust.trustRoots = .file(try TestCertificates.shared().caCertificateFile)
        let tls = trust
        try await withDeadline {
            let refused = TransportProbe(secure.wsURL("/downgrade")) { $0.tls = tls }
            let (end, _) = await refused.ended()
            #expect(end?.error?.code == .redirect && end?.error?.status == 302, "\(String(describing: end))")
            #expect(plain.requests.isEmpty)

            let allowed = TransportProbe(secure.wsURL("/downgrade")) {
                $0.tls = tls
                $0.allowsInsecureRedirects = true
            }
            let opened = try #require(await allowed.opened())
            #expect(opened.url.scheme == "ws")
            allowed.transport.close()
            _ = await allowed.ended()
            #expect(plain.requests(path: "/ws").count == 1)
        }
    }
}
