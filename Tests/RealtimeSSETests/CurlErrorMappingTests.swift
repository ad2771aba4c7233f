#if os(Linux)
import CCurl
import Glibc
import RealtimeCore
@testable import RealtimeSSE
import Testing

@Suite("CurlErrorMapping", .timeLimit(.minutes(1)))
struct CurlErrorMappingTests {
    typealias Stage = CurlErrorMapping.Stage

    static func failure(_ code: CURLcode, _ stage: Stage = .beforeRequest) -> CurlErrorMapping.Failure {
        CurlErrorMapping.Failure(code: code, stage: stage, host: "127.0.0.1", port: 8002)
    }

    @Test("curl results map to stable error codes; curl's number is a trailing detail")
    func table() {
        let table: [(CURLcode, Stage, RealtimeError.Code)] = [
            (CURLE_COULDNT_RESOLVE_HOST, .beforeRequest, .dnsFailure),
            (CURLE_COULDNT_RESOLVE_PROXY, .beforeRequest, .dnsFailure),
            (CURLE_COULDNT_CONNECT, .beforeRequest, .network),
            (CURLE_RECV_ERROR, .open, .network),
            (CURLE_SEND_ERROR, .requestSent, .network),
            (CURLE_PARTIAL_FILE, .open, .network),
            (CURLE_GOT_NOTHING, .requestSent, .network),
            (CURLE_OPERATION_TIMEDOUT, .beforeRequest, .connectTimeout),
            (CURLE_OPERATION_TIMEDOUT, .open, .idleTimeout),
            (CURLE_SSL_CONNECT_ERROR, .beforeRequest, .tls),
            (CURLE_PEER_FAILED_VERIFICATION, .beforeRequest, .tls),
            (CURLE_SSL_PINNEDPUBKEYNOTMATCH, .beforeRequest, .tls),
            (CURLE_SSL_CACERT_BADFILE, .beforeRequest, .invalidConfiguration),
            (CURLE_SSL_CERTPROBLEM, .beforeRequest, .invalidConfiguration),
            (CURLE_URL_MALFORMAT, .beforeRequest, .invalidConfiguration),
            (CURLE_TOO_MANY_REDIRECTS, .requestSent, .redirect),
            (CURLE_WEIRD_SERVER_REPLY, .requestSent, .protocolViolation),
            (CURLE_BAD_CONTENT_ENCODING, .open, .invalidContentEncoding),
            (CURLE_FAILED_INIT, .beforeRequest, .internal),
        ]
        for (code, stage, expected) in table {
            let e = CurlErrorMapping.error(for: Self.failure(code, stage))
            #expect(e.code == expected, "curl \(code.rawValue)")
            #expect(e.detail?.hasSuffix("[curl \(code.rawValue)]") == true, "\(e)")
            #expect(e.detail?.hasPrefix("curl") == false, "\(e)")
        }
    }

    @Test("out of memory is never a permanent internal stop: request not sent, response head, or while reading")
    func outOfMemory() {
        let before = CurlErrorMapping.error(for: Self.failure(CURLE_OUT_OF_MEMORY, .beforeRequest))
        #expect(before.code == .network)
        let head = CurlErrorMapping.error(for: Self.failure(CURLE_OUT_OF_MEMORY, .requestSent))
        #expect(head.code == .protocolViolation)
        #expect(head.detail?.contains("header line too long") == true)
        let open = CurlErrorMapping.error(for: Self.failure(CURLE_OUT_OF_MEMORY, .open))
        #expect(open.code == .network)
    }

    @Test("a malformed chunked body is the server's protocol violation, not a network failure")
    func malformedChunkedBody() {
        for message in [
            "Illegal or missing hexadecimal sequence in chunked-encoding", "Too long hexadecimal number in chunked-encoding",
            "Malformed encoding found in chunked-encoding",
        ] {
            var f = Self.failure(CURLE_RECV_ERROR, .open)
            f.message = message
            let e = CurlErrorMapping.error(for: f)
            #expect(e.code == .protocolViolation)
            #expect(e.detail == "malformed chunked body: \(message) [curl 56]")
        }
        var reset = Self.failure(CURLE_RECV_ERROR, .open)
        reset.osErrno = ECONNRESET
        #expect(CurlErrorMapping.error(for: reset).code == .network)
    }

    @Test("a response head past libcurl's total bound is the server's protocol violation, not a read failure")
    func responseHeadTooLarge() {
        var f = Self.failure(CURLE_RECV_ERROR, .requestSent)
        f.message = "Too large response headers: 307220 > 307200"
        let e = CurlErrorMapping.error(for: f)
        #expect(e.code == .protocolViolation)
        #expect(e.detail == "response head too large: Too large response headers: 307220 > 307200 [curl 56]")
    }

    @Test("an answer that is not HTTP (curl's HTTP/0.9 refusal) is the server's protocol violation, not our configuration")
    func notHTTP() {
        var f = Self.failure(CURLE_UNSUPPORTED_PROTOCOL, .requestSent)
        f.message = "Received HTTP/0.9 when not allowed"
        let e = CurlErrorMapping.error(for: f)
        #expect(e.code == .protocolViolation)
        #expect(e.detail == "malformed response: Received HTTP/0.9 when not allowed [curl 1]")
        for message in ["Unsupported HTTP version (1.2) in response", "Unsupported response code in HTTP response"] {
            f.message = message
            #expect(CurlErrorMapping.error(for: f).code == .protocolViolation, "\(message)")
        }
        var scheme = Self.failure(CURLE_UNSUPPORTED_PROTOCOL, .beforeRequest)
        scheme.message = "Protocol \"gopher\" not supported or disabled in libcurl"
        #expect(CurlErrorMapping.error(for: scheme).code == .invalidConfiguration, "a URL's scheme is still ours")
    }

    @Test("a TLS record that does not decrypt once the stream is up is a network failure, worded as on WebSocket")
    func tlsReadFailure() {
        var f = Self.failure(CURLE_RECV_ERROR, .open)
        f.message = "OpenSSL SSL_read: error:0A00010B:SSL routines::wrong version number, errno 0"
        let e = CurlErrorMapping.error(for: f)
        #expect(e.code == .network)
        #expect(e.detail == "TLS read failed: error:0A00010B:SSL routines::wrong version number [curl 56]")
    }

    @Test("a TLS alert once the stream is open broke the stream, refused nothing: network, retried")
    func tlsAlertOnceOpen() {
        var f = Self.failure(CURLE_RECV_ERROR, .open)
        f.message = "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A000438:SSL routines::tlsv1 alert internal error, errno 0"
        let e = CurlErrorMapping.error(for: f)
        #expect(e.code == .network)
        #expect(e.detail == "TLS read failed: error:0A000438:SSL routines::tlsv1 alert internal error [curl 56]")
    }

    @Test("a refused connection is worded as on WebSocket, with the proxy when there is one")
    func wording() {
        var f = Self.failure(CURLE_COULDNT_CONNECT)
        f.osErrno = ECONNREFUSED
        #expect(CurlErrorMapping.error(for: f).detail == "cannot connect to 127.0.0.1:8002 (connection refused) [curl 7]")
        f.proxy = "10.0.0.1:3128"
        #expect(CurlErrorMapping.error(for: f).detail == "cannot connect to the proxy 10.0.0.1:3128 (connection refused) [curl 7]")
        var reset = Self.failure(CURLE_RECV_ERROR, .open)
        reset.osErrno = ECONNRESET
        #expect(CurlErrorMapping.error(for: reset).detail == "read: connection reset by peer [curl 56]")
    }

    @Test("certificate failures say why: the X509 result, or curl's host name check")
    func certificateReasons() {
        var expired = Self.failure(CURLE_PEER_FAILED_VERIFICATION)
        expired.verifyResult = 10  // X509_V_ERR_CERT_HAS_EXPIRED
        #expect(CurlErrorMapping.error(for: expired).detail == "certificate verify failed: certificate has expired [curl 60]")
        var unknownCA = Self.failure(CURLE_PEER_FAILED_VERIFICATION)
        unknownCA.verifyResult = 20  // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
        #expect(CurlErrorMapping.error(for: unknownCA).detail?.contains("unable to get local issuer certificate") == true)
        var host = Self.failure(CURLE_PEER_FAILED_VERIFICATION)
        host.host = "localhost"
        host.message = "SSL: no alternative certificate subject name matches target host name 'localhost'"
        #expect(CurlErrorMapping.error(for: host).detail == "certificate verify failed: hostname mismatch [curl 60]")
        // An address literal is an IP address mismatch, as OpenSSL (and so `wss`) words it.
        for address in ["127.0.0.1", "::1", "[::1]"] {
            var literal = Self.failure(CURLE_PEER_FAILED_VERIFICATION)
            literal.host = address
            literal.message = "SSL: no alternative certificate subject name matches target host name '\(address)'"
            #expect(CurlErrorMapping.error(for: literal).detail == "certificate verify failed: IP address mismatch [curl 60]")
        }
    }

    /// What libcurl 7.88 with OpenSSL 3 reports for each TLS cause (its codes, errno and error
    /// text, as measured against the loopback peers), and what the SSE transport makes of it:
    /// the `wss` transport's code and words, curl's number behind.
    @Test("TLS failures by cause: a vanished peer is retried, a refusal is tls",
          arguments: [
            (CURLE_SSL_CONNECT_ERROR, Stage.beforeRequest, ECONNRESET, "Recv failure: Connection reset by peer",
             RealtimeError.Code.network, "connection lost during the TLS handshake: connection reset by peer [curl 35]"),
            (CURLE_SSL_CONNECT_ERROR, .beforeRequest, 0, "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:8002 ",
             .network, "connection closed by peer during the TLS handshake [curl 35]"),
            (CURLE_SSL_CONNECT_ERROR, .beforeRequest, 0, "OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version",
             .tls, "no TLS version or cipher in common: tlsv1 alert protocol version [curl 35]"),
            (CURLE_SSL_CONNECT_ERROR, .beforeRequest, 0, "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure",
             .tls, "handshake failed: sslv3 alert handshake failure [curl 35]"),
            (CURLE_SSL_CONNECT_ERROR, .beforeRequest, 0, "something curl said",
             .tls, "handshake failed: something curl said [curl 35]"),
            (CURLE_RECV_ERROR, .requestSent, 0,
             "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0",
             .tls, "client certificate refused: tlsv13 alert certificate required [curl 56]"),
            (CURLE_RECV_ERROR, .open, 0, "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A000119:SSL routines::decryption failed or bad record mac, errno 0",
             .network, "TLS read failed: error:0A000119:SSL routines::decryption failed or bad record mac [curl 56]"),
            (CURLE_OPERATION_TIMEDOUT, .beforeRequest, 0, "SSL connection timeout",
             .connectTimeout, "connect to 127.0.0.1:8002 timed out [curl 28]"),
            (CURLE_SSL_PINNEDPUBKEYNOTMATCH, .beforeRequest, 0, "SSL: public key does not match pinned public key",
             .tls, "server public key does not match any pinned key [curl 90]"),
          ] as [(CURLcode, Stage, Int32, String, RealtimeError.Code, String)])
    func tlsCauses(code: CURLcode, stage: Stage, osErrno: Int32, message: String, expected: RealtimeError.Code, detail: String) {
        var f = Self.failure(code, stage)
        f.osErrno = osErrno
        f.message = message
        let e = CurlErrorMapping.error(for: f)
        #expect(e.code == expected)
        #expect(e.detail == detail)
    }

    @Test("a refused CONNECT is the proxy's answer, before any transfer error")
    func tunnelRefusal() {
        var f = Self.failure(CURLE_RECV_ERROR)
        f.proxyStatus = 407
        #expect(CurlErrorMapping.error(for: f).code == .proxy)
        #expect(CurlErrorMapping.error(for: f).status == 407)
    }
}
#endif
