/// TLS settings shared by both transports (`https` SSE through libcurl, `wss` through OpenSSL).
///
/// Both transports speak TLS 1.2 or later (RFC 9325 §3.1.1), whatever the configuration.
/// The default trusts the system's CA store and verifies the host name. Turning
/// verification off is possible only through the explicitly named
/// ``CertificateVerification/insecureNoVerification``.
public struct TLSConfiguration: Sendable, Hashable {
    /// Whether the server's certificate is verified.
    public enum CertificateVerification: Sendable, Hashable {
        /// Verify the chain and the host name (default).
        case full
        /// Accept any certificate and host name. For tests against self-signed servers only.
        case insecureNoVerification
    }

    /// Where trusted roots come from.
    public enum TrustRoots: Sendable, Hashable {
        /// The operating system's CA store (default).
        case system
        /// A PEM bundle file with the only roots to trust.
        case file(String)
    }

    /// Certificate and host name checks. Default ``CertificateVerification/full``.
    public var verification: CertificateVerification = .full
    /// The roots certificates are verified against. Default the system's store.
    public var trustRoots: TrustRoots = .system
    /// PEM file with the client certificate (chain) for mutual TLS.
    public var clientCertificateFile: String?
    /// PEM file with the client certificate's private key.
    public var clientKeyFile: String?
    /// Pinned public keys, each `sha256//<base64 of the SHA-256 of the DER SubjectPublicKeyInfo>`
    /// (the format of curl's `--pinnedpubkey`). When non-empty, the server's key must match one.
    public var pinnedPublicKeys: [String] = []

    /// The defaults: system roots, full verification, no client certificate, no pins.
    public init() {}

    /// The defaults (``init()``).
    public static let `default` = TLSConfiguration()
}
