#if os(Linux)
import CCurl
import RealtimeCore
@testable import RealtimeSSE
import Testing

@Suite("CurlErrorMapping", .timeLimit(.minutes(1)))
struct CurlErrorMappingTests {
    @Test("curl results map to stable error codes")
    func table() {
        let table: [(CURLcode, Bool, RealtimeError.Code)] = [
            (CURLE_COULDNT_RESOLVE_HOST, false, .dnsFailure),
            (CURLE_COULDNT_RESOLVE_PROXY, false, .dnsFailure),
            (CURLE_COULDNT_CONNECT, false, .network),
            (CURLE_RECV_ERROR, true, .network),
            (CURLE_SEND_ERROR, true, .network),
            (CURLE_PARTIAL_FILE, true, .network),
            (CURLE_GOT_NOTHING, false, .network),
            (CURLE_OPERATION_TIMEDOUT, false, .connectTimeout),
            (CURLE_OPERATION_TIMEDOUT, true, .idleTimeout),
            (CURLE_SSL_CONNECT_ERROR, false, .tls),
            (CURLE_PEER_FAILED_VERIFICATION, false, .tls),
            (CURLE_SSL_PINNEDPUBKEYNOTMATCH, false, .tls),
            (CURLE_SSL_CACERT_BADFILE, false, .invalidConfiguration),
            (CURLE_SSL_CERTPROBLEM, false, .invalidConfiguration),
            (CURLE_URL_MALFORMAT, false, .invalidConfiguration),
            (CURLE_TOO_MANY_REDIRECTS, false, .redirect),
            (CURLE_WEIRD_SERVER_REPLY, false, .protocolViolation),
            (CURLE_OUT_OF_MEMORY, false, .internal),
        ]
        for (code, opened, expected) in table {
            let e = CurlErrorMapping.error(for: code, opened: opened)
            #expect(e.code == expected, "curl \(code.rawValue)")
            #expect(e.detail?.hasPrefix("curl \(code.rawValue):") == true)
        }
    }
}
#endif
