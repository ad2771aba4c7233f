/// Why a TLS connection failed: the one table both transports classify TLS failures by (SSE
/// from what libcurl reports, WebSocket from OpenSSL's own state), so the same failure has the
/// same code, the same words and the same retry decision on `https` and `wss`.
///
/// A peer that resets or closes the connection during the handshake has refused nothing: a
/// server restarting, overloaded past its accept queue, or a load balancer draining does that,
/// and the next attempt may well succeed. Those causes are network failures (code `network`,
/// retried with backoff); a handshake that stalls runs into the connect timeout
/// (`connect_timeout`, retried too). A refusal stated by the peer or by the client's own
/// checks (a certificate not trusted, expired or for another name, a pinned key not matched,
/// no protocol version or cipher in common, a client certificate required or refused) comes
/// back on every attempt: code `tls`, and the client stops. The Errors article lists the table.
package enum TLSFailureCause: String, Sendable, Hashable, CaseIterable {
    /// The peer reset the connection (or the socket failed) during the handshake.
    case connectionReset
    /// The peer closed the connection during the handshake without a TLS alert.
    case connectionClosed
    /// The certificate chain does not end in a trusted root (unknown CA, self-signed, broken
    /// chain, bad signature): any X.509 verification result without a row of its own.
    case untrustedCertificate
    /// The certificate has expired or is not valid yet (`X509_V_ERR_CERT_HAS_EXPIRED`,
    /// `X509_V_ERR_CERT_NOT_YET_VALID`).
    case expiredCertificate
    /// The certificate is for another host name or address (`X509_V_ERR_HOSTNAME_MISMATCH`,
    /// `X509_V_ERR_IP_ADDRESS_MISMATCH`, or libcurl's own name check).
    case nameMismatch
    /// The server's public key matches none of `TLSConfiguration.pinnedPublicKeys`.
    case pinMismatch
    /// No protocol version or cipher suite in common: the server's `protocol_version` or
    /// `insufficient_security` alert (RFC 8446 §6.2), or a server that answers with something
    /// other than TLS 1.2 or later.
    case noCommonParameters
    /// The server refused the client's certificate or asked for one the client did not send:
    /// `certificate_required` (RFC 8446 §4.4.2.4, sent after the client's handshake completed
    /// in TLS 1.3), `bad_certificate`, `unknown_ca`, `certificate_expired` and the other
    /// certificate alerts; only the client's certificate is judged by the server.
    case clientCertificateRefused
    /// Any other handshake failure: another alert (`handshake_failure`, which a server sends
    /// when no cipher suite is in common, and in TLS 1.2 for a missing client certificate), a
    /// malformed message.
    case handshakeFailed

    /// The error code: `network` for the peer vanishing, `tls` for every refusal.
    package var code: RealtimeError.Code {
        switch self {
        case .connectionReset, .connectionClosed: .network
        case .untrustedCertificate, .expiredCertificate, .nameMismatch, .pinMismatch, .noCommonParameters,
            .clientCertificateRefused, .handshakeFailed:
            .tls
        }
    }

    /// The detail both transports give (SSE adds curl's number): `reason` is OpenSSL's text for
    /// the verification result or the alert ("certificate has expired", "tlsv1 alert protocol
    /// version"), or the socket error for a reset ("connection reset by peer"); empty when
    /// there is none.
    package func detail(reason: String) -> String {
        let phrase: String
        switch self {
        case .connectionReset: phrase = "connection lost during the TLS handshake"
        case .connectionClosed: return "connection closed by peer during the TLS handshake"
        case .pinMismatch: return "server public key does not match any pinned key"
        case .untrustedCertificate, .expiredCertificate, .nameMismatch: phrase = "certificate verify failed"
        case .noCommonParameters: phrase = "no TLS version or cipher in common"
        case .clientCertificateRefused: phrase = "client certificate refused"
        case .handshakeFailed: phrase = "handshake failed"
        }
        return reason.isEmpty ? phrase : "\(phrase): \(reason)"
    }

    /// The error for this cause, worded by ``detail(reason:)``.
    package func error(reason: String) -> RealtimeError {
        RealtimeError(code, detail: detail(reason: reason))
    }
}
