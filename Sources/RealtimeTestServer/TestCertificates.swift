import Foundation
import RealtimeCore
#if canImport(COpenSSL)
import COpenSSL
#endif

/// A throw-away PKI for TLS tests: a CA, a server certificate for the loopback
/// names, and a client certificate for mutual TLS, all generated with the `openssl`
/// command (ECDSA P-256, valid for 2 days).
///
/// ```swift
/// let certificates = try TestCertificates.generate(in: directory)
/// let server = TestServer(configuration: .init(tls: .init(certificates: certificates)))
/// var tls = TLSConfiguration()
/// tls.trustRoots = .file(certificates.caCertificateFile)
/// tls.pinnedPublicKeys = [certificates.serverPublicKeyPin]
/// ```
package struct TestCertificates: Sendable, Hashable {
    /// PEM file of the test CA certificate (use as the client's trust root).
    package var caCertificateFile: String
    /// PEM file of the CA's private key (to sign more certificates in a test).
    package var caKeyFile: String
    /// PEM file of the server certificate; SANs `localhost`, `127.0.0.1`, `::1`.
    package var serverCertificateFile: String
    /// The server's private key (PEM).
    package var serverKeyFile: String
    /// PEM file of a client certificate (CN `realtime-test-client`) signed by the CA.
    package var clientCertificateFile: String
    /// The client certificate's private key (PEM).
    package var clientKeyFile: String
    /// The server's public key pin, `sha256//<base64 SHA-256 of the DER SubjectPublicKeyInfo>`
    /// (curl's `--pinnedpubkey` format, ``TLSConfiguration/pinnedPublicKeys``).
    package var serverPublicKeyPin: String

    /// The certificates could not be generated; the description says why.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// One set per `name` for the whole process, generated on first use under the temporary
    /// directory. Test suites that need "a CA and its certificates" share it: each generation
    /// runs `openssl` six times, synchronously, and a dozen suites doing that at once held the
    /// threads async tests run on for seconds. Ask for another `name` for a second, unrelated
    /// CA (a certificate the first CA did not sign).
    package static func shared(_ name: String = "default") throws -> TestCertificates {
        try sharedSets.withLock { sets in
            if let existing = sets[name] { return existing }
            let directory = NSTemporaryDirectory() + "realtime-test-certificates-\(getpid())/\(name)"
            let made = try generate(in: directory)
            sets[name] = made
            return made
        }
    }

    private static let sharedSets = LockedValue<[String: TestCertificates]>([:])

    /// Generates the CA, server and client certificates into `directory` (created if
    /// missing; existing files are overwritten). Takes about a tenth of a second.
    package static func generate(in directory: String) throws -> TestCertificates {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        let certificates = TestCertificates(
            caCertificateFile: path("ca.pem"), caKeyFile: path("ca.key"),
            serverCertificateFile: path("server.pem"), serverKeyFile: path("server.key"),
            clientCertificateFile: path("client.pem"), clientKeyFile: path("client.key"),
            serverPublicKeyPin: "")
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try runOpenSSL(["req", "-x509"] + curve + [
            "-keyout", certificates.caKeyFile, "-out", certificates.caCertificateFile, "-days", "2",
            "-subj", "/CN=Realtime Test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try issue(certificates, name: "server", subject: "/CN=localhost", extensions: """
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=serverAuth
            subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
            """, directory: path)
        try issue(certificates, name: "client", subject: "/CN=realtime-test-client", extensions: """
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=clientAuth
            """, directory: path)
        var result = certificates
        result.serverPublicKeyPin = try publicKeyPin(ofKeyFile: certificates.serverKeyFile, scratch: path("server.spki.der"))
        return result
    }

    /// The `sha256//…` pin of the public key in a PEM private key file.
    package static func publicKeyPin(ofKeyFile keyFile: String, scratch: String) throws -> String {
        try runOpenSSL(["pkey", "-in", keyFile, "-pubout", "-outform", "DER", "-out", scratch])
        let der = try [UInt8](Data(contentsOf: URL(fileURLWithPath: scratch)))
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = SHA256(der, der.count, &digest)
        return "sha256//" + Data(digest).base64EncodedString()
    }

    static func issue(
        _ certificates: TestCertificates, name: String, subject: String, extensions: String, days: Int = 2,
        directory path: (String) -> String
    ) throws {
        let extensionsFile = path("\(name).ext")
        try extensions.write(toFile: extensionsFile, atomically: true, encoding: .utf8)
        try runOpenSSL([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", subject,
        ])
        try runOpenSSL([
            "x509", "-req", "-in", path("\(name).csr"), "-CA", certificates.caCertificateFile,
            "-CAkey", certificates.caKeyFile, "-CAcreateserial", "-CAserial", path("\(name).srl"), "-days", "\(days)", "-sha256",
            "-extfile", extensionsFile, "-out", path("\(name).pem"),
        ])
    }

    /// Runs `openssl` with `arguments`; throws with its standard error when it fails.
    package static func runOpenSSL(_ arguments: [String]) throws {
        let run = try SpawnedProcess.run("openssl", arguments, timeout: .seconds(120))
        guard run.termination == .exited(0) else {
            throw Failure(description: "openssl \(arguments.first ?? "") failed (\(run.termination.map { "\($0)" } ?? "timed out")): "
                + String(run.errorText.prefix(500)))
        }
    }
}
