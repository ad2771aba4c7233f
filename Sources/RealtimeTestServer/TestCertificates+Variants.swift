import Foundation
import RealtimeCore

extension TestCertificates {
    /// A server certificate signed by this CA for other names or another validity, for tests
    /// of what a client must refuse: `subjectAltName` without the host the client dials fails
    /// its host name check, a negative `days` gives a certificate that has already expired.
    /// Generated once per `name` for the process, next to this CA's files.
    package func server(
        _ name: String, subjectAltName: String = "DNS:localhost,IP:127.0.0.1,IP:::1", days: Int = 2
    ) throws -> TestServer.Configuration.TLS {
        try Self.variants.withLock { made in
            let key = "\(caCertificateFile)|\(name)"
            if let tls = made[key] { return tls }
            let directory = (caCertificateFile as NSString).deletingLastPathComponent
            func path(_ file: String) -> String { (directory as NSString).appendingPathComponent(file) }
            try Self.issue(self, name: "variant-\(name)", subject: "/CN=\(name)", extensions: """
                basicConstraints=CA:FALSE
                keyUsage=critical,digitalSignature
                extendedKeyUsage=serverAuth
                subjectAltName=\(subjectAltName)
                """, days: days, directory: path)
            let tls = TestServer.Configuration.TLS(
                certificateFile: path("variant-\(name).pem"), privateKeyFile: path("variant-\(name).key"))
            made[key] = tls
            return tls
        }
    }

    /// A self-signed server certificate for the loopback names: no CA vouches for it, so a
    /// client that verifies refuses it whatever it trusts.
    package static func selfSignedServer() throws -> TestServer.Configuration.TLS {
        try variants.withLock { made in
            if let tls = made["self-signed"] { return tls }
            let directory = NSTemporaryDirectory() + "realtime-test-certificates-\(getpid())/self-signed"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let tls = TestServer.Configuration.TLS(certificateFile: directory + "/server.pem", privateKeyFile: directory + "/server.key")
            try runOpenSSL([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", tls.privateKeyFile, "-out", tls.certificateFile, "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
            ])
            made["self-signed"] = tls
            return tls
        }
    }

    private static let variants = LockedValue<[String: TestServer.Configuration.TLS]>([:])
}
