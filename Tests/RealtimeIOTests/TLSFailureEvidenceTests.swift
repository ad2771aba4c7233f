#if os(Linux)
import Glibc
import RealtimeCore
@testable import RealtimeIO
import Testing

/// The one decision both transports make about a failed TLS connection, as a table: what
/// OpenSSL, the socket and libcurl left behind, and the cause, code and words that follow.
@Suite("TLSFailureEvidence", .timeLimit(.minutes(1)))
struct TLSFailureEvidenceTests {
    /// Packed OpenSSL 3 codes as `ERR_error_string` (and so curl's error text) prints them.
    enum Packed {
        static let protocolVersionAlert: UInt = 0x0A00_042E  // tlsv1 alert protocol version
        static let handshakeFailureAlert: UInt = 0x0A00_0410  // sslv3 alert handshake failure
        static let certificateRequiredAlert: UInt = 0x0A00_045C  // tlsv13 alert certificate required
        static let badCertificateAlert: UInt = 0x0A00_0412  // sslv3 alert bad certificate
        static let unknownCAAlert: UInt = 0x0A00_0418  // tlsv1 alert unknown ca
        static let internalErrorAlert: UInt = 0x0A00_0438  // tlsv1 alert internal error
        static let unexpectedEOF: UInt = 0x0A00_0126  // unexpected eof while reading
        static let wrongVersionNumber: UInt = 0x0A00_010B  // wrong version number
        static let unsupportedProtocol: UInt = 0x0A00_0102  // unsupported protocol
        static let certificateVerifyFailed: UInt = 0x0A00_0086  // certificate verify failed
        static let legacySigalg: UInt = 0x0A00_014D  // legacy sigalg disallowed or unsupported
        static let systemReset: UInt = 0x8000_0068  // a system error: ECONNRESET (104)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var evidence: TLSFailureEvidence
        var cause: TLSFailureCause
        var detail: String
        var testDescription: String { detail }
    }

    static let rows: [Row] = [
        // The peer vanished: network, retried.
        Row(evidence: .init(socketError: ECONNRESET), cause: .connectionReset,
            detail: "connection lost during the TLS handshake: connection reset by peer"),
        Row(evidence: .init(socketError: EPIPE), cause: .connectionReset,
            detail: "connection lost during the TLS handshake: broken pipe"),
        Row(evidence: .init(openSSLError: Packed.systemReset), cause: .connectionReset,
            detail: "connection lost during the TLS handshake: connection reset by peer"),
        Row(evidence: .init(peerClosed: true), cause: .connectionClosed,
            detail: "connection closed by peer during the TLS handshake"),
        Row(evidence: .init(openSSLError: Packed.unexpectedEOF), cause: .connectionClosed,
            detail: "connection closed by peer during the TLS handshake"),
        // The certificate: tls, not retried.
        Row(evidence: .init(verifyResult: 20), cause: .untrustedCertificate,
            detail: "certificate verify failed: unable to get local issuer certificate"),
        Row(evidence: .init(verifyResult: 18), cause: .untrustedCertificate,
            detail: "certificate verify failed: self-signed certificate"),
        Row(evidence: .init(verifyResult: 19), cause: .untrustedCertificate,
            detail: "certificate verify failed: self-signed certificate in certificate chain"),
        Row(evidence: .init(verifyResult: 10), cause: .expiredCertificate,
            detail: "certificate verify failed: certificate has expired"),
        Row(evidence: .init(verifyResult: 9), cause: .expiredCertificate,
            detail: "certificate verify failed: certificate is not yet valid"),
        Row(evidence: .init(verifyResult: 62), cause: .nameMismatch, detail: "certificate verify failed: hostname mismatch"),
        Row(evidence: .init(verifyResult: 64), cause: .nameMismatch, detail: "certificate verify failed: IP address mismatch"),
        Row(evidence: .init(openSSLError: Packed.certificateVerifyFailed), cause: .untrustedCertificate,
            detail: "certificate verify failed: certificate verify failed"),
        Row(evidence: .init(pinMismatch: true), cause: .pinMismatch, detail: "server public key does not match any pinned key"),
        // What the server refused: tls, not retried.
        Row(evidence: .init(openSSLError: Packed.protocolVersionAlert), cause: .noCommonParameters,
            detail: "no TLS version or cipher in common: tlsv1 alert protocol version"),
        Row(evidence: .init(openSSLError: Packed.wrongVersionNumber), cause: .noCommonParameters,
            detail: "no TLS version or cipher in common: wrong version number"),
        Row(evidence: .init(openSSLError: Packed.unsupportedProtocol), cause: .noCommonParameters,
            detail: "no TLS version or cipher in common: unsupported protocol"),
        Row(evidence: .init(openSSLError: Packed.handshakeFailureAlert), cause: .handshakeFailed,
            detail: "handshake failed: sslv3 alert handshake failure"),
        Row(evidence: .init(openSSLError: Packed.certificateRequiredAlert), cause: .clientCertificateRefused,
            detail: "client certificate refused: tlsv13 alert certificate required"),
        Row(evidence: .init(openSSLError: Packed.badCertificateAlert), cause: .clientCertificateRefused,
            detail: "client certificate refused: sslv3 alert bad certificate"),
        Row(evidence: .init(openSSLError: Packed.unknownCAAlert), cause: .clientCertificateRefused,
            detail: "client certificate refused: tlsv1 alert unknown ca"),
        Row(evidence: .init(openSSLError: Packed.internalErrorAlert), cause: .handshakeFailed,
            detail: "handshake failed: tlsv1 alert internal error"),
        Row(evidence: .init(openSSLError: Packed.legacySigalg), cause: .handshakeFailed,
            detail: "handshake failed: legacy sigalg disallowed or unsupported"),
        Row(evidence: .init(), cause: .handshakeFailed, detail: "handshake failed"),
        // The most specific evidence wins: an alert over the reset that followed it, the
        // certificate over the alert the client sent about it, the pin over everything.
        Row(evidence: .init(openSSLError: Packed.protocolVersionAlert, socketError: ECONNRESET), cause: .noCommonParameters,
            detail: "no TLS version or cipher in common: tlsv1 alert protocol version"),
        Row(evidence: .init(verifyResult: 10, openSSLError: Packed.certificateVerifyFailed), cause: .expiredCertificate,
            detail: "certificate verify failed: certificate has expired"),
        Row(evidence: .init(pinMismatch: true, socketError: ECONNRESET), cause: .pinMismatch,
            detail: "server public key does not match any pinned key"),
        Row(evidence: .init(socketError: ECONNRESET, peerClosed: true), cause: .connectionReset,
            detail: "connection lost during the TLS handshake: connection reset by peer"),
    ]

    @Test("evidence → cause, code and words", arguments: rows)
    func table(row: Row) {
        #expect(row.evidence.cause == row.cause)
        #expect(row.evidence.error.code == row.cause.code)
        #expect(row.evidence.error.detail == row.detail)
    }

    @Test("only a vanished peer is a network failure; every refusal is tls")
    func classes() {
        for row in Self.rows {
            let vanished = row.cause == .connectionReset || row.cause == .connectionClosed
            #expect(row.evidence.error.failureClass == (vanished ? .network : .tls), "\(row.detail)")
        }
        #expect(Set(Self.rows.map(\.cause)) == Set(TLSFailureCause.allCases), "every cause has a row")
    }

    @Test("the packed code is read from OpenSSL's error text as libcurl 7.88 quotes it")
    func packedCodeInText() {
        let texts: [(String, UInt)] = [
            ("OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version", Packed.protocolVersionAlert),
            ("OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0",
             Packed.certificateRequiredAlert),
            ("error:0A000410:SSL routines::sslv3 alert handshake failure", Packed.handshakeFailureAlert),
            ("Recv failure: Connection reset by peer", 0),
            ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:4433 ", 0),
            ("error: the server said error:XYZ", 0),
            ("error:0A00042E", 0),
            ("", 0),
        ]
        for (text, code) in texts {
            #expect(TLSFailureEvidence.openSSLError(in: text) == code, "\(text)")
        }
    }

    @Test("a received alert is told apart from the client's own errors and from system errors")
    func receivedAlerts() {
        #expect(TLSFailureEvidence.isReceivedAlert(Packed.certificateRequiredAlert))
        #expect(TLSFailureEvidence.isReceivedAlert(Packed.protocolVersionAlert))
        #expect(!TLSFailureEvidence.isReceivedAlert(Packed.wrongVersionNumber))
        #expect(!TLSFailureEvidence.isReceivedAlert(Packed.systemReset))
        #expect(!TLSFailureEvidence.isReceivedAlert(0))
    }
}
#endif
