#if os(Linux)
import COpenSSL
@_spi(Transport) import RealtimeCore

/// What a failed TLS connection left behind, from which ``cause`` decides the
/// ``TLSFailureCause``: the one decision both transports make, the WebSocket byte stream from
/// its own OpenSSL session and socket, the SSE transport from what libcurl reports
/// (`CURLINFO_OS_ERRNO`, `CURLINFO_SSL_VERIFYRESULT`, and the packed OpenSSL code that
/// curl's error text quotes as `error:0A00042E:`).
package struct TLSFailureEvidence: Sendable, Hashable {
    /// The server's key matched none of the pinned keys.
    package var pinMismatch = false
    /// The X.509 verification result, `X509_V_OK` (0) when the chain passed or was not checked.
    package var verifyResult = 0
    /// The first packed OpenSSL error code (`ERR_get_error`), 0 when there is none.
    package var openSSLError: UInt = 0
    /// The socket error (`errno`) that ended the connection, 0 when none.
    package var socketError: Int32 = 0
    /// The peer closed the connection (end of file) before the handshake completed.
    package var peerClosed = false

    package init(
        pinMismatch: Bool = false, verifyResult: Int = 0, openSSLError: UInt = 0, socketError: Int32 = 0,
        peerClosed: Bool = false
    ) {
        self.pinMismatch = pinMismatch
        self.verifyResult = verifyResult
        self.openSSLError = openSSLError
        self.socketError = socketError
        self.peerClosed = peerClosed
    }

    /// The cause, most specific evidence first: the pin, the certificate's verification, an
    /// OpenSSL error (an alert the server sent, or the client's own refusal), then the socket:
    /// a reset, or an end of file without an alert. Evidence of nothing is a failed handshake
    /// (permanent): a failure nobody can explain is not retried blindly.
    package var cause: TLSFailureCause {
        if pinMismatch { return .pinMismatch }
        if verifyResult != Int(X509_V_OK) { return Self.cause(verifyResult: verifyResult) }
        if openSSLError != 0, let cause = Self.cause(openSSLError: openSSLError) { return cause }
        if socketError != 0 { return .connectionReset }
        if peerClosed { return .connectionClosed }
        return .handshakeFailed
    }

    /// The words for ``cause``: the socket error for a reset ("connection reset by peer"),
    /// OpenSSL's text for a verification result ("certificate has expired") or an error
    /// ("tlsv1 alert protocol version"); empty when the evidence says nothing more.
    package var reason: String {
        switch cause {
        case .connectionReset:
            let code = socketError != 0 ? socketError : ERR_GET_REASON(openSSLError)
            return code == 0 ? "" : AddressConnector.errnoString(code)
        case .connectionClosed, .pinMismatch:
            return ""
        case .untrustedCertificate, .expiredCertificate, .nameMismatch, .noCommonParameters, .clientCertificateRefused,
            .handshakeFailed:
            if verifyResult != Int(X509_V_OK) { return X509VerifyResult.reason(verifyResult) }
            guard openSSLError != 0, Self.stringsLoaded, let text = ERR_reason_error_string(openSSLError) else { return "" }
            return String(cString: text)
        }
    }

    /// OpenSSL loads its error texts with its first context; a code read from curl's text may
    /// be looked up before this process made one.
    private static let stringsLoaded: Bool = {
        OPENSSL_init_ssl(UInt64(OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS), nil) == 1
    }()

    /// The error for this evidence: ``cause``'s code, worded with ``reason``.
    package var error: RealtimeError { cause.error(reason: reason) }

    /// Whether `code` is an alert the peer sent (OpenSSL reports a received alert as the
    /// reason `SSL_AD_REASON_OFFSET` + the alert's number, RFC 8446 §6).
    package static func isReceivedAlert(_ code: UInt) -> Bool {
        ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) > SSL_AD_REASON_OFFSET
    }

    /// The packed code in text that quotes an OpenSSL error the way `ERR_error_string` writes
    /// it (`error:0A00042E:SSL routines::tlsv1 alert protocol version`, as curl's error text
    /// does); 0 when the text holds none.
    package static func openSSLError(in text: String) -> UInt {
        let bytes = Array(text.utf8), marker = Array("error:".utf8)
        var i = 0
        while i + marker.count + 9 <= bytes.count {
            let start = i + marker.count
            if bytes[i..<start].elementsEqual(marker), bytes[start + 8] == UInt8(ascii: ":"),
                let code = UInt(String(decoding: bytes[start..<start + 8], as: UTF8.self), radix: 16)
            {
                return code
            }
            i += 1
        }
        return 0
    }

    private static func cause(verifyResult: Int) -> TLSFailureCause {
        switch Int32(truncatingIfNeeded: verifyResult) {
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID: .expiredCertificate
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH, X509_V_ERR_EMAIL_MISMATCH: .nameMismatch
        default: .untrustedCertificate
        }
    }

    /// The cause an OpenSSL error names; nil for one that says nothing about the handshake
    /// (a resource failure), which leaves the decision to the socket.
    private static func cause(openSSLError code: UInt) -> TLSFailureCause? {
        if ERR_GET_LIB(code) == ERR_LIB_SYS { return .connectionReset }
        guard ERR_GET_LIB(code) == ERR_LIB_SSL else { return nil }
        let reason = ERR_GET_REASON(code)
        if reason > SSL_AD_REASON_OFFSET { return cause(alert: reason - SSL_AD_REASON_OFFSET) }
        switch reason {
        case SSL_R_UNEXPECTED_EOF_WHILE_READING: return .connectionClosed
        case SSL_R_CERTIFICATE_VERIFY_FAILED: return .untrustedCertificate
        case SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_NO_PROTOCOLS_AVAILABLE, SSL_R_WRONG_VERSION_NUMBER,
            SSL_R_NO_CIPHERS_AVAILABLE, SSL_R_NO_SHARED_CIPHER, SSL_R_VERSION_TOO_LOW:
            return .noCommonParameters
        default: return .handshakeFailed
        }
    }

    /// A TLS alert from the server (RFC 8446 §6.2, RFC 5246 §7.2.2): its number says which.
    /// `handshake_failure` says least: no cipher suite in common, or in TLS 1.2 a client
    /// certificate the server required; it stays a plain failed handshake (permanent all the same).
    private static func cause(alert: Int32) -> TLSFailureCause {
        switch alert {
        case SSL_AD_PROTOCOL_VERSION, SSL_AD_INSUFFICIENT_SECURITY, SSL_AD_INAPPROPRIATE_FALLBACK:
            return .noCommonParameters
        case SSL_AD_CERTIFICATE_REQUIRED, SSL_AD_BAD_CERTIFICATE, SSL_AD_UNSUPPORTED_CERTIFICATE,
            SSL_AD_CERTIFICATE_REVOKED, SSL_AD_CERTIFICATE_EXPIRED, SSL_AD_CERTIFICATE_UNKNOWN, SSL_AD_UNKNOWN_CA,
            SSL_AD_ACCESS_DENIED, SSL_AD_NO_CERTIFICATE:
            return .clientCertificateRefused
        default:
            return .handshakeFailed
        }
    }
}
#endif
