#if os(Linux)
import COpenSSL
#endif

/// SHA-1 from OpenSSL's libcrypto, injected into the codec's handshake validator to check
/// `Sec-WebSocket-Accept` (RFC 6455 §4.1; SHA-1 is what the RFC mandates there, not a
/// security choice of ours).
package enum OpenSSLSHA1 {
    package static func digest(_ input: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let ok = EVP_Digest(input, input.count, &out, &length, EVP_sha1(), nil)
        precondition(ok == 1 && length == 20, "EVP_Digest(SHA-1) failed")
        return out
    }
}
