extension TestServer {
    /// Starts a server for `rtcat demo` and manual experiments, in-process.
    ///
    /// - Parameters:
    ///   - port: port to bind (0: any free port; read it back from ``port``).
    ///   - ipv6: also listen on `::1`.
    ///   - certificateDirectory: when given, generates ``TestCertificates`` there and serves
    ///     HTTPS/WSS with them; the CA to trust is `<directory>/ca.pem`.
    /// - Returns: the running server; call ``stop()`` when done.
    public static func runDemoServer(port: UInt16 = 0, ipv6: Bool = false, certificateDirectory: String? = nil)
        throws -> TestServer
    {
        var configuration = Configuration(port: port, ipv6: ipv6)
        if let certificateDirectory {
            configuration.tls = .init(certificates: try TestCertificates.generate(in: certificateDirectory))
        }
        let server = TestServer(configuration: configuration)
        try server.start()
        return server
    }
}
