#if os(Linux)
import COpenSSL
@_spi(Transport) import RealtimeCore

/// A TLS client engine over two OpenSSL memory BIOs: ciphertext goes in and out as bytes,
/// so the socket (and its non-blocking I/O, `MSG_NOSIGNAL` and back-pressure) stays ours and
/// OpenSSL never touches a file descriptor or raises SIGPIPE.
///
/// Not thread-safe: owned by one ``SocketByteStream`` on its loop thread.
final class TLSSession {
    private let ssl: OpaquePointer
    /// Network → OpenSSL (ciphertext we read from the socket). Replaced by an empty one when
    /// it is drained and grew past ``retainedBIOCapacity``.
    private var inBIO: OpaquePointer
    /// OpenSSL → network (ciphertext to write to the socket); replaced likewise.
    private var outBIO: OpaquePointer
    private let configuration: TLSConfiguration
    private(set) var handshakeDone = false

    /// A memory BIO keeps the storage of its largest content: a drained one larger than this
    /// is replaced, so a quiet connection keeps no buffer sized for a past burst.
    static let retainedBIOCapacity = 4096

    init(configuration: TLSConfiguration, host: String) throws(RealtimeError) {
        self.configuration = configuration
        ERR_clear_error()
        let ctx = try TLSContextCache.shared.context(for: configuration)
        defer { SSL_CTX_free(ctx) } // the SSL object keeps its own reference
        guard let ssl = SSL_new(ctx) else { throw Self.error("cannot create TLS session") }
        guard let inBIO = BIO_new(BIO_s_mem()), let outBIO = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw Self.error("cannot create memory BIO")
        }
        // An empty input BIO means "need more bytes", not end of file.
        _ = rt_BIO_set_mem_eof_return(inBIO, -1)
        SSL_set_bio(ssl, inBIO, outBIO) // ssl owns both BIOs from here
        self.ssl = ssl
        self.inBIO = inBIO
        self.outBIO = outBIO
        // From here on every stored property is set, so a throw runs deinit (which frees
        // `ssl`): no manual cleanup below.

        let isIPLiteral = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        if !isIPLiteral {
            // SNI is for names only (RFC 6066 §3 forbids literal IP addresses).
            _ = rt_SSL_set_tlsext_host_name(ssl, host)
        }
        if configuration.verification == .full {
            let ok: Int32
            if isIPLiteral {
                ok = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
            } else {
                ok = SSL_set1_host(ssl, host)
            }
            if ok != 1 {
                throw RealtimeError(.invalidConfiguration, detail: "invalid TLS host name")
            }
        }
        SSL_set_connect_state(ssl)
    }

    deinit {
        SSL_free(ssl)
    }

    /// A client context for `configuration` (one reference for the caller); see
    /// ``TLSContextCache``, which calls this once per configuration.
    static func makeContext(_ configuration: TLSConfiguration) throws(RealtimeError) -> OpaquePointer {
        ERR_clear_error()
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw Self.error("cannot create TLS context") }
        do {
            try configure(ctx, configuration)
        } catch {
            SSL_CTX_free(ctx)
            throw error
        }
        return ctx
    }

    private static func configure(_ ctx: OpaquePointer, _ configuration: TLSConfiguration) throws(RealtimeError) {
        _ = rt_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)
        // OpenSSL frees a connection's record buffers (about 34 KiB) whenever they are empty,
        // instead of keeping them for the connection's life: an idle connection holds none.
        _ = rt_SSL_CTX_set_mode(ctx, Int(SSL_MODE_RELEASE_BUFFERS))
        switch configuration.verification {
        case .full:
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            switch configuration.trustRoots {
            case .system:
                if SSL_CTX_set_default_verify_paths(ctx) != 1 { throw Self.error("cannot load the system trust store") }
            case .file(let path):
                if SSL_CTX_load_verify_locations(ctx, path, nil) != 1 {
                    throw RealtimeError(.invalidConfiguration, detail: "cannot load CA file: \(Self.openSSLErrorString())")
                }
            }
        case .insecureNoVerification:
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        }
        if let certFile = configuration.clientCertificateFile {
            if SSL_CTX_use_certificate_chain_file(ctx, certFile) != 1 {
                throw RealtimeError(.invalidConfiguration, detail: "cannot load client certificate: \(Self.openSSLErrorString())")
            }
            let keyFile = configuration.clientKeyFile ?? certFile
            if SSL_CTX_use_PrivateKey_file(ctx, keyFile, SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ctx) != 1 {
                throw RealtimeError(.invalidConfiguration, detail: "cannot load client key: \(Self.openSSLErrorString())")
            }
        }
    }

    /// Hands ciphertext read from the socket to OpenSSL.
    func receive(_ ciphertext: UnsafeRawBufferPointer) {
        guard let base = ciphertext.baseAddress, !ciphertext.isEmpty else { return }
        _ = BIO_write(inBIO, base, Int32(ciphertext.count)) // a memory BIO takes everything
    }

    /// Advances the handshake; true once it is complete and every check passed.
    func handshake() throws(RealtimeError) -> Bool {
        if handshakeDone { return true }
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 {
            try verifyPins()
            handshakeDone = true
            return true
        }
        let err = SSL_get_error(ssl, rc)
        if err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE { return false }
        throw handshakeError()
    }

    enum ReadResult {
        case bytes(Int)
        case needMore
        /// The peer sent `close_notify`.
        case closed
    }

    /// Decrypts buffered records into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RealtimeError) -> ReadResult {
        ERR_clear_error()
        let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if n > 0 { return .bytes(Int(n)) }
        let err = SSL_get_error(ssl, n)
        switch err {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            releaseDrainedInput()
            return .needMore
        case SSL_ERROR_ZERO_RETURN: return .closed
        default:
            // A TLS 1.3 server refuses the client's certificate after the client finished its
            // handshake (RFC 8446 §4.4.2.4): its alert arrives here, and is the same refusal.
            let code = ERR_peek_error()
            if TLSFailureEvidence.isReceivedAlert(code) {
                ERR_clear_error()
                throw TLSFailureEvidence(openSSLError: code).error
            }
            // Anything else after the handshake (a record that does not decrypt, bytes that
            // are not TLS) broke the stream, not the agreement: retried like a cut, as the SSE
            // transport does with libcurl's "SSL_read" failure (Errors.md, "TLS failures").
            throw RealtimeError(.network, detail: "TLS read failed: \(Self.openSSLErrorString())")
        }
    }

    /// Encrypts `plaintext`; the records are then available from ``drainCiphertext(into:)``.
    func write(_ plaintext: UnsafeRawBufferPointer) throws(RealtimeError) {
        guard let base = plaintext.baseAddress, !plaintext.isEmpty else { return }
        var offset = 0
        while offset < plaintext.count {
            ERR_clear_error()
            // Memory BIOs grow as needed, so SSL_write takes everything once the handshake is
            // done; chunks keep the int32 length in range.
            let chunk = min(plaintext.count - offset, 1 << 30)
            let n = SSL_write(ssl, base + offset, Int32(chunk))
            guard n > 0 else {
                throw RealtimeError(.tls, detail: "TLS write failed: \(Self.openSSLErrorString())")
            }
            offset += Int(n)
        }
    }

    /// Queues a `close_notify` alert (best effort).
    func shutdown() {
        guard handshakeDone else { return }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }

    /// Appends pending outbound ciphertext to `buffer`; returns the number of bytes added.
    @discardableResult
    func drainCiphertext(into buffer: inout [UInt8]) -> Int {
        var total = 0
        while case let pending = Int(rt_BIO_ctrl_pending(outBIO)), pending > 0 {
            // Read straight into the destination's new tail: no staging buffer.
            let start = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: pending))
            let n = buffer.withUnsafeMutableBytes { raw in
                BIO_read(outBIO, raw.baseAddress! + start, Int32(clamping: pending))
            }
            buffer.removeLast(pending - max(0, Int(n)))
            if n <= 0 { break }
            total += Int(n)
        }
        if rt_BIO_mem_capacity(outBIO) > Self.retainedBIOCapacity, let fresh = Self.memoryBIO() {
            SSL_set0_wbio(ssl, fresh)
            outBIO = fresh
        }
        return total
    }

    /// OpenSSL has consumed every byte of ciphertext received: drop the input BIO's storage
    /// if a large read grew it.
    private func releaseDrainedInput() {
        guard rt_BIO_ctrl_pending(inBIO) == 0, rt_BIO_mem_capacity(inBIO) > Self.retainedBIOCapacity,
            let fresh = Self.memoryBIO()
        else { return }
        SSL_set0_rbio(ssl, fresh)
        inBIO = fresh
    }

    /// An empty memory BIO that reads as "need more bytes" rather than end of file.
    private static func memoryBIO() -> OpaquePointer? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        _ = rt_BIO_set_mem_eof_return(bio, -1)
        return bio
    }

    // MARK: - Checks and errors

    private func verifyPins() throws(RealtimeError) {
        let pins = configuration.pinnedPublicKeys
            .flatMap { $0.split(separator: ";") }
            .map { $0.trimmingCharacters(in: " ") }
            .filter { !$0.isEmpty }
        guard !pins.isEmpty else { return }
        guard let cert = SSL_get1_peer_certificate(ssl) else {
            throw RealtimeError(.tls, detail: "no server certificate to check the pinned key against")
        }
        defer { X509_free(cert) }
        guard let actual = Self.spkiSHA256Base64(cert) else {
            throw RealtimeError(.tls, detail: "cannot read the server's public key")
        }
        let wanted = pins.compactMap { pin -> String? in
            pin.hasPrefix("sha256//") ? String(pin.dropFirst("sha256//".count)) : nil
        }
        if !wanted.contains(actual) {
            throw TLSFailureEvidence(pinMismatch: true).error
        }
    }

    /// `base64(SHA-256(DER SubjectPublicKeyInfo))`, the value of a `sha256//` pin.
    static func spkiSHA256Base64(_ cert: OpaquePointer) -> String? {
        guard let pubkey = X509_get_X509_PUBKEY(cert) else { return nil }
        let length = i2d_X509_PUBKEY(pubkey, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buf -> Int32 in
            var p: UnsafeMutablePointer<UInt8>? = buf.baseAddress
            return i2d_X509_PUBKEY(pubkey, &p)
        }
        guard written == length else { return nil }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var digestLength: UInt32 = 0
        guard EVP_Digest(der, der.count, &digest, &digestLength, EVP_sha256(), nil) == 1 else { return nil }
        var encoded = [UInt8](repeating: 0, count: 64)
        let n = EVP_EncodeBlock(&encoded, digest, Int32(digestLength))
        return String(decoding: encoded.prefix(Int(n)), as: UTF8.self)
    }

    /// Classified by ``TLSFailureEvidence``: the verification result, else the oldest queued
    /// OpenSSL error (a received alert, or the client's own refusal).
    private func handshakeError() -> RealtimeError {
        let evidence = TLSFailureEvidence(verifyResult: SSL_get_verify_result(ssl), openSSLError: ERR_get_error())
        ERR_clear_error()
        return evidence.error
    }

    private static func error(_ detail: String) -> RealtimeError {
        RealtimeError(.tls, detail: "\(detail): \(openSSLErrorString())")
    }

    /// The oldest queued OpenSSL error as text (library and reason, no secrets), then clears
    /// the thread's queue.
    static func openSSLErrorString() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown error" }
        var buf = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buf, buf.count)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

private extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        var s = self
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}
#endif
