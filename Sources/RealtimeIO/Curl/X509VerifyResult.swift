#if os(Linux)
import COpenSSL

/// OpenSSL's words for a certificate verification result, for the SSE transport, whose
/// libcurl reports only the number (`CURLINFO_SSL_VERIFYRESULT`): so an SSE certificate
/// failure reads like a `wss` one ("certificate has expired", "unable to get local issuer
/// certificate", "hostname mismatch").
package enum X509VerifyResult {
    /// `X509_V_OK`.
    package static let ok = Int(X509_V_OK)
    /// `X509_V_ERR_HOSTNAME_MISMATCH` and `X509_V_ERR_IP_ADDRESS_MISMATCH`: libcurl checks
    /// the name itself and reports its own words, which these stand for.
    package static let hostnameMismatch = Int(X509_V_ERR_HOSTNAME_MISMATCH)
    package static let ipAddressMismatch = Int(X509_V_ERR_IP_ADDRESS_MISMATCH)

    /// The reason for `result` (an `X509_V_ERR_*` value), as `X509_verify_cert_error_string`
    /// gives it.
    package static func reason(_ result: Int) -> String {
        String(cString: X509_verify_cert_error_string(result))
    }
}
#endif
