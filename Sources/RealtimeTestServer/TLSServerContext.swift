#if canImport(COpenSSL)
import COpenSSL
#endif

/// An OpenSSL server context built from ``TestServer/Configuration/TLS``.
///
/// `@unchecked Sendable`: the `SSL_CTX` is configured once in `init` and afterwards
/// only used to create `SSL` objects, which OpenSSL documents as thread-safe.
final class TLSServerContext: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let context: OpaquePointer
    let handshakeFault: TLSHandshakeFault?

    init(_ configuration: TestServer.Configuration.TLS) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw Failure(description: "SSL_CTX_new failed") }
        self.context = context
        handshakeFault = configuration.handshakeFault
        _ = rt_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        guard SSL_CTX_use_certificate_chain_file(context, configuration.certificateFile) == 1 else {
            throw Failure(description: "cannot load certificate \(configuration.certificateFile): \(Self.lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, configuration.privateKeyFile, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(context) == 1 else {
            throw Failure(description: "cannot load private key \(configuration.privateKeyFile): \(Self.lastError())")
        }
        if let caFile = configuration.clientCAFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw Failure(description: "cannot load client CA \(caFile): \(Self.lastError())")
            }
            if let names = SSL_load_client_CA_file(caFile) { SSL_CTX_set_client_CA_list(context, names) }
        }
        configuration.handshakeFault?.configure(context)
        if configuration.requireClientCertificate {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        } else if configuration.clientCAFile != nil {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        }
    }

    deinit { SSL_CTX_free(context) }

    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
