import Foundation
import Testing
import RealtimeCore
import RealtimeTestSupport
import RealtimeTestServer
import RealtimeWebSocket

/// Certificate failures say why: an unknown CA, an expired certificate and a host name that
/// does not match each fail with `tls` and the reason in the detail (and are not retried by
/// the client: `tls` is a stop class).
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

    @Test func hostNameMismatch() async throws {
        let (cert, key) = try Self.issue("elsewhere", altNames: "DNS:elsewhere.example", days: 2)
        let error = try await Self.failure(cert: cert, key: key)
        #expect(error?.code == .tls)
        #expect(error?.detail?.contains("mismatch") == true, "\(String(describing: error))")
    }
}
