import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import RealtimeTestServer
import RealtimeWebSocket

/// TLS failures by cause: an unknown CA, an expired certificate, a host name that does not
/// match, no version or cipher in common and a refused client certificate each fail with `tls`
/// and the reason in the detail (a stop class); a server that resets, closes or stalls during
/// the handshake fails with `network` or `connect_timeout` (retried).
@Suite(.serialized, .timeLimit(.minutes(1))) struct WebSocketTLSFailureTests {
    /// A server certificate signed by the shared test CA, with these names and validity.
    static func issue(_ name: String, altNames: String, days: Int) throws -> (cert: String, key: String) {
        let ca = try TestCertificates.shared()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rt-tls-\(name)-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = "\(directory)/server.key", csr = "\(directory)/server.csr", cert = "\(directory)/server.pem"
        let ext = "\(directory)/server.ext"
        try "subjectAltName=\(altNames)\nextendedKeyUsage=serverAuth\n".write(toFile: ext, atomically: true, encoding: .utf8)
        try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", key, "-out", csr, "-subj", "/CN=\(name)"])
        // A negative validity gives a certificate that expired the moment it was issued.
        try openssl(["x509", "-req", "-in", csr, "-CA", ca.caCertificateFile, "-CAkey", ca.caKeyFile,
                     "-CAcreateserial", "-CAserial", "\(directory)/ca.srl", "-days", "\(days)", "-sha256",
                     "-extfile", ext, "-out", cert])
        return (cert, key)
    }

    static func openssl(_ arguments: [String]) throws {
        try TestCertificates.runOpenSSL(arguments)
    }

    static func failure(cert: String, key: String, trustTestCA: Bool = true) async throws -> RealtimeError? {
        let server = TestServer(configuration: TestServer.Configuration(
            tls: TestServer.Configuration.TLS(certificateFile: cert, privateKeyFile: key)))
        try server.start()
        defer { server.stop() }
        var trust = TLSConfiguration()
        if trustTestCA { trust.trustRoots = .file(try TestCertificates.shared().caCertificateFile) }
        let tls = trust
        return try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws")) { $0.tls = tls }
            let (end, _) = await probe.ended()
            return end?.error
        }
    }

    @Test func unknownCA() async throws {
        let certificates = try TestCertificates.shared()
        let error = try await Self.failure(cert: certificates.serverCertificateFile, key: certificates.serverKeyFile, trustTestCA: false)
        #expect(error?.code == .tls)
        #expect(error?.detail?.contains("unable to get local issuer certificate") == true, "\(String(describing: error))")
    }

    @Test func expiredCertificate() async throws {
        let (cert, key) = try Self.issue("expired", altNames: "DNS:localhost,IP:127.0.0.1", days: -1)
        let error = try await Self.failure(cert: cert, key: key)
        #expect(error?.code == .tls)
        #expect(error?.detail?.contains("certificate has expired") == true, "\(String(describing: error))")
    }

    /// The test server's handshake faults: a reset or a close after the ClientHello is a
    /// network failure (the client retries it), a stall runs into the connect timeout, no
    /// version or cipher in common is a tls refusal; the words are the SSE transport's.
    @Test(arguments: TLSHandshakeFault.allCases) func handshakeFault(_ fault: TLSHandshakeFault) async throws {
        let certificates = try TestCertificates.shared()
        let server = TestServer(configuration: .init(tls: .init(certificates: certificates, handshakeFault: fault)))
        try server.start()
        defer { server.stop() }
        let error = try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws")) {
                $0.tls.trustRoots = .file(certificates.caCertificateFile)
                // Only the stall waits for it; a loaded machine answers the others well within.
                $0.connectTimeout = fault == .stallAfterClientHello ? .milliseconds(300) : .seconds(30)
            }
            let (end, _) = await probe.ended()
            return end?.error
        }
        let expected: (RealtimeError.Code, String) =
            switch fault {
            case .resetAfterClientHello: (.network, "connection lost during the TLS handshake: connection reset by peer")
            case .closeAfterClientHello: (.network, "connection closed by peer during the TLS handshake")
            case .stallAfterClientHello: (.connectTimeout, "no WebSocket handshake within 300 ms")
            case .protocolVersion: (.tls, "no TLS version or cipher in common: tlsv1 alert protocol version")
            case .noSharedCipher: (.tls, "handshake failed: sslv3 alert handshake failure")
            }
        #expect(error?.code == expected.0, "\(String(describing: error))")
        #expect(error?.detail == expected.1, "\(String(describing: error))")
        #expect(server.requests.isEmpty)
    }

    /// TLS 1.3 refuses a missing client certificate after the client's handshake: the alert
    /// arrives with the answer to the upgrade request, and is the same refusal as on SSE.
    @Test func clientCertificateRequired() async throws {
        let certificates = try TestCertificates.shared()
        let server = TestServer(configuration: .init(tls: .init(certificates: certificates, requireClientCertificate: true)))
        try server.start()
        defer { server.stop() }
        let error = try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws")) { $0.tls.trustRoots = .file(certificates.caCertificateFile) }
            let (end, _) = await probe.ended()
            return end?.error
        }
        #expect(error?.code == .tls, "\(String(describing: error))")
        #expect(error?.detail == "client certificate refused: tlsv13 alert certificate required", "\(String(describing: error))")
    }

    @Test func hostNameMismatch() async throws {
        let (cert, key) = try Self.issue("elsewhere", altNames: "DNS:elsewhere.example", days: 2)
        let error = try await Self.failure(cert: cert, key: key)
        #expect(error?.code == .tls)
        #expect(error?.detail?.contains("mismatch") == true, "\(String(describing: error))")
    }
}
