import RealtimeCore

extension TestServer {
    /// A custom endpoint: runs on the connection's thread, may block, and answers through the writer.
    package typealias Handler = @Sendable (ResponseWriter) throws -> Void

    /// How a ``TestServer`` listens and what it serves.
    package struct Configuration: Sendable {
        /// TLS settings (PEM files, as produced by ``TestCertificates``).
        package struct TLS: Sendable, Hashable {
            /// The server's certificate chain (PEM).
            package var certificateFile: String
            /// The server's private key (PEM).
            package var privateKeyFile: String
            /// CA bundle used to verify client certificates (mutual TLS).
            package var clientCAFile: String?
            /// Refuse the handshake when the client presents no valid certificate.
            package var requireClientCertificate: Bool
            /// Misbehave during every handshake instead of serving (a reset, a close or a stall
            /// after the ClientHello; no version or cipher in common). Default nil.
            package var handshakeFault: TLSHandshakeFault?

            /// TLS settings with these files.
            package init(
                certificateFile: String, privateKeyFile: String, clientCAFile: String? = nil,
                requireClientCertificate: Bool = false, handshakeFault: TLSHandshakeFault? = nil
            ) {
                self.certificateFile = certificateFile
                self.privateKeyFile = privateKeyFile
                self.clientCAFile = clientCAFile
                self.requireClientCertificate = requireClientCertificate
                self.handshakeFault = handshakeFault
            }

            /// The server certificate of `certificates`; with `requireClientCertificate`,
            /// clients must present a certificate signed by its CA.
            package init(
                certificates: TestCertificates, requireClientCertificate: Bool = false,
                handshakeFault: TLSHandshakeFault? = nil
            ) {
                self.init(
                    certificateFile: certificates.serverCertificateFile, privateKeyFile: certificates.serverKeyFile,
                    clientCAFile: certificates.caCertificateFile, requireClientCertificate: requireClientCertificate,
                    handshakeFault: handshakeFault)
            }
        }

        /// Port to bind; 0 (default) picks a free one at the first `start()` and keeps it for restarts.
        package var port: UInt16
        /// Also listen on `::1` (same port). Default false.
        package var ipv6: Bool
        /// Serve HTTPS/WSS instead of HTTP/WS. Default nil (plain).
        package var tls: TLS?
        /// Custom endpoints by exact path; they take precedence over the built-in ones.
        package var routes: [String: Handler]

        /// A configuration; port 0 picks a free one.
        package init(port: UInt16 = 0, ipv6: Bool = false, tls: TLS? = nil, routes: [String: Handler] = [:]) {
            self.port = port
            self.ipv6 = ipv6
            self.tls = tls
            self.routes = routes
        }
    }
}
