import Foundation
import RealtimeCore
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// TLS and mutual TLS on the test server, checked with the `openssl s_client` command.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct TestServerTLSTests {
    static let certificates: Result<TestCertificates, any Error> = Result {
        try TestCertificates.shared()
    }

    /// Runs `openssl s_client` on a thread of its own (never on the cooperative pool), sends
    /// one request, returns (exit status, stdout).
    private func sClient(
        port: UInt16, target: String, caFile: String, extra: [String] = [], headers: [String] = []
    ) async throws -> (Int32, String) {
        try await offloaded { try Self.sClientBlocking(port: port, target: target, caFile: caFile, extra: extra, headers: headers) }
    }

    private static func sClientBlocking(
        port: UInt16, target: String, caFile: String, extra: [String], headers: [String]
    ) throws -> (Int32, String) {
        let head = (["GET \(target) HTTP/1.1", "Host: localhost"] + headers).joined(separator: "\r\n")
        let run = try SpawnedProcess.run(
            "openssl",
            [
                "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost",
                "-CAfile", caFile, "-verify_return_error", "-verify_ip", "127.0.0.1", "-quiet", "-ign_eof",
            ] + extra,
            input: .bytes(Array((head + "\r\n\r\n").utf8)), error: .null, timeout: .seconds(20))
        return (run.termination?.status ?? -1, run.outputText)
    }

    @Test func generatesACAServerAndClientCertificates() throws {
        let certificates = try Self.certificates.get()
        for file in [
            certificates.caCertificateFile, certificates.serverCertificateFile, certificates.serverKeyFile,
            certificates.clientCertificateFile, certificates.clientKeyFile,
        ] {
            #expect(FileManager.default.fileExists(atPath: file))
        }
        #expect(certificates.serverPublicKeyPin.hasPrefix("sha256//"))
        #expect(Data(base64Encoded: String(certificates.serverPublicKeyPin.dropFirst(8)))?.count == 32)
    }

    @Test func servesHTTPSVerifiedByTheTestCA() async throws {
        let certificates = try Self.certificates.get()
        let server = TestServer(configuration: .init(tls: .init(certificates: certificates)))
        try server.start()
        defer { server.stop() }
        #expect(server.baseURL.scheme == "https")
        #expect(server.wsBaseURL.scheme == "wss")
        let (status, output) = try await sClient(port: server.port, target: "/sse?count=2&framing=close", caFile: certificates.caCertificateFile)
        #expect(status == 0)
        #expect(output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(output.hasSuffix("id: 2\ndata: event 2\n\n"))
        #expect(server.requests.last?.isTLS == true)
        #expect(server.requests.last?.clientCertificateSubject == nil)
    }

    @Test func aClientTrustingAnotherCAFailsTheHandshake() async throws {
        let certificates = try Self.certificates.get()
        let stranger = try TestCertificates.shared("other")
        let server = TestServer(configuration: .init(tls: .init(certificates: certificates)))
        try server.start()
        defer { server.stop() }
        let (status, output) = try await sClient(port: server.port, target: "/sse", caFile: stranger.caCertificateFile)
        #expect(status != 0)
        #expect(!output.contains("HTTP/1.1"))
        #expect(server.requests.isEmpty)
        // The client is done once it refused the certificate; the server may not have accepted
        // the connection yet (a loaded machine): wait for its side of the failure.
        await server.waitForFailedHandshakes(1)
        server.stop()
        #expect(server.statistics.failedHandshakes == 1)
    }

    @Test func mutualTLSRequiresTheClientCertificate() async throws {
        let certificates = try Self.certificates.get()
        let server = TestServer(configuration: .init(tls: .init(certificates: certificates, requireClientCertificate: true)))
        try server.start()
        defer { server.stop() }
        let (refused, refusedOutput) = try await sClient(port: server.port, target: "/sse?count=1", caFile: certificates.caCertificateFile)
        #expect(!refusedOutput.contains("HTTP/1.1 200"))
        _ = refused  // TLS 1.3 reports the missing certificate after the handshake, so the exit status varies.
        let (status, output) = try await sClient(
            port: server.port, target: "/sse?count=1&framing=close", caFile: certificates.caCertificateFile,
            extra: ["-cert", certificates.clientCertificateFile, "-key", certificates.clientKeyFile])
        #expect(status == 0)
        #expect(output.hasPrefix("HTTP/1.1 200 OK"))
        #expect(server.requests.last?.clientCertificateSubject?.contains("realtime-test-client") == true)
    }

    @Test func servesWebSocketOverTLS() async throws {
        let certificates = try Self.certificates.get()
        let server = TestServer(configuration: .init(tls: .init(certificates: certificates)))
        try server.start()
        defer { server.stop() }
        // s_client never answers the close: the server drops the connection after 100 ms.
        let target = "/ws?mode=send&count=1&close=1000&close_timeout_ms=100"
        let (_, output) = try await sClient(
            port: server.port, target: target, caFile: certificates.caCertificateFile,
            headers: [
                "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                "Sec-WebSocket-Version: 13",
            ])
        #expect(output.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(output.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        // The unmasked text frame "message 1" (0x81, length 9) follows the head, then the close.
        #expect(output.contains("\tmessage 1"))
        #expect(server.webSocketSessions.first?.target == target)
    }
}
