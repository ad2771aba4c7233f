#if os(Linux)
import CCurl
import RealtimeCore

/// How a libcurl result becomes a ``RealtimeError`` (the table is in the README).
enum CurlErrorMapping {
    /// The error for a transfer that ended with `code` (not `CURLE_OK`).
    /// `opened` tells a timeout before the response head (connect) from one after.
    /// `proxyStatus` is `CURLINFO_HTTP_CONNECTCODE` (0 when no CONNECT was answered): a
    /// refused tunnel is the proxy's answer, whatever transfer error curl reports for it
    /// (7.88 says `CURLE_RECV_ERROR`, which alone would be retried as a network failure).
    static func error(for code: CURLcode, opened: Bool, proxyStatus: Int = 0) -> RealtimeError {
        let detail = "curl \(code.rawValue): " + (curl_easy_strerror(code).map { String(cString: $0) } ?? "unknown")
        if !opened, proxyStatus >= 300 {
            return HTTPProxy.tunnelRefusal(status: proxyStatus)
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return RealtimeError(.dnsFailure, detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            return RealtimeError(opened ? .idleTimeout : .connectTimeout, detail: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE:
            return RealtimeError(.tls, detail: detail)
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM, CURLE_URL_MALFORMAT,
            CURLE_UNSUPPORTED_PROTOCOL, CURLE_NOT_BUILT_IN, CURLE_BAD_FUNCTION_ARGUMENT, CURLE_UNKNOWN_OPTION:
            return RealtimeError(.invalidConfiguration, detail: detail)
        case CURLE_TOO_MANY_REDIRECTS:
            return RealtimeError(.redirect, detail: detail)
        case CURLE_WEIRD_SERVER_REPLY:
            return RealtimeError(.protocolViolation, detail: detail)
        case CURLE_OUT_OF_MEMORY, CURLE_FAILED_INIT:
            return RealtimeError(.internal, detail: detail)
        default:
            // COULDNT_CONNECT (refused), RECV_ERROR/SEND_ERROR (reset), GOT_NOTHING,
            // PARTIAL_FILE (cut mid-body), HTTP2/HTTP2_STREAM, and anything unexpected:
            // the connection failed; retrying is the right default.
            return RealtimeError(.network, detail: detail)
        }
    }
}
#endif
