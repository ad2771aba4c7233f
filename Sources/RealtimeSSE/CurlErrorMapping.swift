#if os(Linux)
import CCurl
import Glibc
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// How a libcurl result becomes a ``RealtimeError``.
///
/// The wording is the WebSocket transport's for the same failure ("cannot connect to
/// 127.0.0.1:8002 (connection refused)", "certificate verify failed: certificate has
/// expired"), with curl's number as a trailing detail (`[curl 7]`), never as the message.
package enum CurlErrorMapping {
    /// How far the transfer had come when it failed.
    package enum Stage: Sendable, Hashable {
        /// No byte of the request was written: DNS, connect, proxy, TLS, or a request curl
        /// could not build.
        case beforeRequest
        /// The request may have been (partly) written; no final response head yet.
        case requestSent
        /// The stream was open (200 + `text/event-stream`).
        case open
    }

    /// What the transfer knew when it failed, read from the easy handle.
    package struct Failure: Sendable, Hashable {
        var code: CURLcode
        var stage: Stage
        /// The URL's host and port (the request's, not the proxy's).
        var host = ""
        var port = 0
        /// `host:port` of the proxy in use, nil when direct.
        var proxy: String?
        /// `CURLINFO_HTTP_CONNECTCODE`: the proxy's answer to `CONNECT`, 0 when none.
        var proxyStatus = 0
        /// `CURLINFO_OS_ERRNO`: the socket error behind a connect or receive failure, 0 when none.
        package var osErrno: Int32 = 0
        /// `CURLINFO_SSL_VERIFYRESULT`: the X509 verification result, 0 (`X509_V_OK`) when none.
        var verifyResult = 0
        /// curl's own message (`CURLOPT_ERRORBUFFER`), already free of URL credentials.
        var message = ""
    }

    /// The error for a transfer that ended with `failure.code` (not `CURLE_OK`).
    static func error(for f: Failure) -> RealtimeError {
        // A refused tunnel is the proxy's answer, whatever transfer error curl reports for it
        // (7.88 says CURLE_RECV_ERROR, which alone would be retried as a network failure).
        if f.stage != .open, f.proxyStatus >= 300 {
            return HTTPProxy.tunnelRefusal(status: f.proxyStatus)
        }
        let (code, text) = classify(f)
        return RealtimeError(code, detail: "\(text) [curl \(f.code.rawValue)]")
    }

    private static func classify(_ f: Failure) -> (RealtimeError.Code, String) {
        if let tls = tlsFailure(f) { return tls }
        switch f.code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return (.dnsFailure, "cannot resolve \(f.host)")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return (.dnsFailure, "cannot resolve the proxy")
        case CURLE_COULDNT_CONNECT:
            let what = f.proxy.map { "the proxy \($0)" } ?? "\(f.host):\(f.port)"
            return (.network, "cannot connect to \(what)\(reason(f, fallback: ""))")
        case CURLE_OPERATION_TIMEDOUT:
            if f.stage == .open { return (.idleTimeout, "read timed out") }
            return (.connectTimeout, "connect to \(f.host):\(f.port)\(f.proxy.map { " through the proxy \($0)" } ?? "") timed out")
        case CURLE_UNSUPPORTED_PROTOCOL where f.stage != .beforeRequest:
            // Once the request went out (redirects are ours, so never to another scheme), the
            // server's answer is not an HTTP/1.x status line: an SSH or SMTP greeting or TLS
            // bytes on a plain port (libcurl refuses it as HTTP/0.9), another version ("HTTP/3";
            // libcurl 7.88 also refuses "HTTP/1.2", which RFC 9112 §2.3 would read as 1.1) or a
            // status that is not three digits. libcurl says so with the code of an unsupported
            // URL scheme, which alone would blame the configuration and stop for good.
            return (.protocolViolation, "malformed response: \(f.message)")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_NOT_BUILT_IN, CURLE_BAD_FUNCTION_ARGUMENT,
            CURLE_UNKNOWN_OPTION:
            return (.invalidConfiguration, text(f))
        case CURLE_TOO_MANY_REDIRECTS:
            return (.redirect, text(f))
        case CURLE_WEIRD_SERVER_REPLY:
            return (.protocolViolation, "malformed response" + (f.message.isEmpty ? "" : ": \(f.message)"))
        case CURLE_BAD_CONTENT_ENCODING:
            return (.invalidContentEncoding, "the response body does not decode" + (f.message.isEmpty ? "" : ": \(f.message)"))
        case CURLE_OUT_OF_MEMORY:
            return outOfMemory(f)
        case CURLE_FAILED_INIT:
            return (.internal, text(f))
        case CURLE_GOT_NOTHING:
            return (.network, "connection closed by peer before the response head")
        case CURLE_PARTIAL_FILE:
            return (.network, "connection closed by peer in the middle of the body")
        case CURLE_RECV_ERROR:
            // curl reports a malformed chunked body (a size line that is not hex, too long,
            // or a chunk longer than announced) as a receive error: it is the server breaking
            // HTTP/1.1 (RFC 9112 §7.1), not the network.
            if f.message.contains("chunked-encoding") { return (.protocolViolation, "malformed chunked body: \(f.message)") }
            // A response head past libcurl's total bound (300 KiB, "Too large response
            // headers: …") is the server's doing too, like one header line past 100 KiB.
            if f.message.hasPrefix("Too large response headers") { return (.protocolViolation, "response head too large: \(f.message)") }
            if let reason = tlsReadFailure(f.message) { return (.network, "TLS read failed: \(reason)") }
            return (.network, "read\(reason(f, fallback: " failed"))")
        case CURLE_SEND_ERROR:
            return (.network, "write\(reason(f, fallback: " failed"))")
        default:
            // HTTP2/HTTP2_STREAM and anything unexpected: the connection failed; retrying
            // is the right default.
            return (.network, text(f))
        }
    }

    /// Certificate, pinning and handshake failures, classified by ``TLSFailureEvidence`` as the
    /// `wss` transport classifies its own, and worded alike.
    private static func tlsFailure(_ f: Failure) -> (RealtimeError.Code, String)? {
        switch f.code {
        case CURLE_PEER_FAILED_VERIFICATION:
            var evidence = TLSFailureEvidence(verifyResult: f.verifyResult)
            // curl checks the host name itself, after OpenSSL accepted the chain (and then
            // reports X509_V_ERR_UNSPECIFIED as the verify result): OpenSSL's own result for
            // the same mismatch, so the words are the `wss` transport's.
            if f.message.contains("subject name") || f.message.contains("host name") {
                evidence.verifyResult =
                    isAddressLiteral(f.host) ? X509VerifyResult.ipAddressMismatch : X509VerifyResult.hostnameMismatch
            }
            guard evidence.verifyResult != X509VerifyResult.ok else {
                return (.tls, "certificate verify failed" + (f.message.isEmpty ? "" : ": \(f.message)"))
            }
            return described(evidence, f)
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return described(TLSFailureEvidence(pinMismatch: true), f)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE:
            // curl 7.88 reports a handshake the peer reset as "Recv failure: <strerror>" with
            // the errno in CURLINFO_OS_ERRNO, a peer that closed without an alert as
            // "SSL_ERROR_SYSCALL" and no errno, and OpenSSL's own failures with its packed code.
            return described(TLSFailureEvidence(
                openSSLError: TLSFailureEvidence.openSSLError(in: f.message), socketError: f.osErrno,
                peerClosed: f.message.contains("SSL_ERROR_SYSCALL")), f)
        case CURLE_RECV_ERROR where f.stage != .open, CURLE_SEND_ERROR where f.stage != .open:
            // An alert the server sent after the handshake: a TLS 1.3 server refuses a client
            // certificate only once the client's handshake is over (RFC 8446 §4.4.2.4). Once
            // the stream is open the server had accepted it: an alert then broke the stream,
            // refused nothing, and is a read failure (below).
            let code = TLSFailureEvidence.openSSLError(in: f.message)
            guard TLSFailureEvidence.isReceivedAlert(code) else { return nil }
            return described(TLSFailureEvidence(openSSLError: code), f)
        case CURLE_SSL_CACERT_BADFILE:
            return (.invalidConfiguration, "cannot load CA file")
        case CURLE_SSL_CERTPROBLEM:
            return (.invalidConfiguration, "cannot load client certificate or key")
        default:
            return nil
        }
    }

    /// The code and words for `evidence`; curl's message when OpenSSL has no words for a
    /// failed handshake.
    private static func described(_ evidence: TLSFailureEvidence, _ f: Failure) -> (RealtimeError.Code, String) {
        let cause = evidence.cause
        var reason = evidence.reason
        if reason.isEmpty, cause == .handshakeFailed { reason = f.message }
        return (cause.code, cause.detail(reason: reason))
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name (brackets allowed).
    private static func isAddressLiteral(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, bare, &buffer) == 1 || inet_pton(AF_INET6, bare, &buffer) == 1
    }

    /// libcurl says "out of memory" for three different things: a request head it will not
    /// build (over its 1 MiB buffer), a response header line longer than it will buffer
    /// (100 KiB), and a real allocation failure. None is a reason to stop for good.
    private static func outOfMemory(_ f: Failure) -> (RealtimeError.Code, String) {
        switch f.stage {
        case .beforeRequest:
            return (.network, "the request could not be sent (local resource failure: out of memory)")
        case .requestSent:
            return (.protocolViolation, "response header line too long")
        case .open:
            return (.network, "local resource failure while reading (out of memory)")
        }
    }

    /// OpenSSL's words in curl's "OpenSSL SSL_read: error:0A00010B:SSL routines::wrong version
    /// number, errno 0" (a record that does not decrypt once the stream is up), as the `wss`
    /// transport words the same failure; nil for any other message.
    private static func tlsReadFailure(_ message: String) -> String? {
        guard message.contains("SSL_read"), let start = message.firstRange(of: "error:")?.lowerBound else { return nil }
        let reason = message[start...]
        return String(reason.firstRange(of: ", errno").map { reason[..<$0.lowerBound] } ?? reason)
    }

    /// " (connection refused)" from the socket error, else `fallback`.
    private static func reason(_ f: Failure, fallback: String) -> String {
        guard f.osErrno != 0 else { return fallback }
        let text = errnoText(f.osErrno)
        return fallback.isEmpty ? " (\(text))" : ": \(text)"
    }

    /// `strerror` with a lower-case first letter ("connection refused"), as both transports
    /// word socket errors.
    static func errnoText(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }

    /// curl's own message, or its text for the code.
    private static func text(_ f: Failure) -> String {
        if !f.message.isEmpty { return f.message }
        return curl_easy_strerror(f.code).map { String(cString: $0) } ?? "unknown libcurl error"
    }
}

extension CurlErrorMapping.Failure {
    /// A failure with only its code, stage, socket error and curl's text known (what a
    /// scripted transfer reports).
    package init(code: CURLcode, stage: CurlErrorMapping.Stage, osErrno: Int32, message: String = "") {
        self.init(code: code, stage: stage)
        self.osErrno = osErrno
        self.message = message
    }
}
#endif
