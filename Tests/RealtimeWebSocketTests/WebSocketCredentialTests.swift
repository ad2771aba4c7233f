import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import RealtimeTestServer
import RealtimeWebSocket

/// A `wss` → `ws` handshake redirect against the in-repo ``TestServer`` over TLS: refused
/// unless allowed. Credentials in the handshake and across redirects are on the embedded
/// stack (`WebSocketEmbeddedCredentialTests`).
@Suite(.serialized, .timeLimit(.minutes(1))) struct WebSocketCredentialTests {
    static func server(tls: Bool = false) throws -> TestServer {
        let server = TestServer(configuration: TestServer.Configuration(
            tls: tls ? TestServer.Configuration.TLS(certificates: try TestCertificates.shared()) : nil))
        try server.start()
        return server
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
