#if canImport(Glibc)
import Glibc
#endif
#if canImport(COpenSSL)
import COpenSSL
#endif

/// A TLS server that misbehaves during the handshake (``TestServer/Configuration/TLS/handshakeFault``):
/// the first three vanish the way an overloaded or restarting server does, the last two
/// refuse the way a misconfigured one does.
package enum TLSHandshakeFault: Sendable, Hashable, CaseIterable {
    /// Reads the client's first record (the ClientHello), then resets the connection
    /// (`SO_LINGER` 0: a TCP RST, as a full accept queue or a crashing server gives).
    case resetAfterClientHello
    /// Reads the ClientHello, then closes the connection cleanly (a FIN, no TLS alert).
    case closeAfterClientHello
    /// Reads the ClientHello and answers nothing, holding the connection until the client
    /// gives up or the server stops.
    case stallAfterClientHello
    /// Speaks only TLS 1.0 and 1.1, which the client never offers: the server answers the
    /// ClientHello with a `protocol_version` alert (RFC 8446 §6.2).
    case protocolVersion
    /// Speaks TLS 1.2 with a single cipher suite the client never offers (a NULL cipher): the
    /// server answers with a `handshake_failure` alert.
    case noSharedCipher

    /// Whether the fault replaces the handshake (the server never runs OpenSSL).
    var vanishes: Bool {
        switch self {
        case .resetAfterClientHello, .closeAfterClientHello, .stallAfterClientHello: true
        case .protocolVersion, .noSharedCipher: false
        }
    }

    /// Restricts `context` for the refusals; nothing for the faults that vanish.
    func configure(_ context: OpaquePointer) {
        switch self {
        case .protocolVersion:
            _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_VERSION), nil)
            _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_1_VERSION), nil)
            // TLS 1.1 signatures are below OpenSSL 3's default security level.
            _ = SSL_CTX_set_cipher_list(context, "DEFAULT:@SECLEVEL=0")
        case .noSharedCipher:
            _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
            _ = SSL_CTX_set_cipher_list(context, "ECDHE-ECDSA-NULL-SHA:NULL-SHA256:@SECLEVEL=0")
        case .resetAfterClientHello, .closeAfterClientHello, .stallAfterClientHello:
            break
        }
    }

    /// Plays a fault that vanishes on the accepted socket `fd`: reads the ClientHello, then
    /// resets, closes (the caller closes `fd`) or waits until the client leaves or `wakeFD`
    /// (the server's stop) is signalled.
    func play(fd: Int32, wakeFD: Int32) {
        guard Self.readFirstRecord(fd: fd, wakeFD: wakeFD) else { return }
        switch self {
        case .resetAfterClientHello:
            Socket.setAbortiveClose(fd)
        case .stallAfterClientHello:
            var byte: UInt8 = 0
            // Readable again means the client closed (or sent more): either way it gave up.
            while Socket.waitReadable(fd, orWake: wakeFD, timeoutMilliseconds: -1).ready {
                if recv(fd, &byte, 1, 0) <= 0 { return }
            }
        case .closeAfterClientHello, .protocolVersion, .noSharedCipher:
            break
        }
    }

    /// Reads one whole TLS record (5-byte header, then its length); false when the client left
    /// or the server stopped first.
    private static func readFirstRecord(fd: Int32, wakeFD: Int32) -> Bool {
        var record: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while record.count < 5 || record.count < 5 + (Int(record[3]) << 8 | Int(record[4])) {
            let ready = Socket.waitReadable(fd, orWake: wakeFD, timeoutMilliseconds: -1)
            guard ready.ready, !ready.woken else { return false }
            let n = buffer.withUnsafeMutableBytes { (try? Socket.receive(fd, $0)) ?? 0 }
            if n <= 0 { return false }
            record += buffer[0..<n]
        }
        return true
    }
}
