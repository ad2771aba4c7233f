#if canImport(Glibc)
import Glibc
#endif
#if canImport(COpenSSL)
import COpenSSL
#endif

/// One accepted connection, plain or TLS, used from its own thread with blocking I/O.
///
/// TLS runs over memory BIOs: OpenSSL never touches the socket, and every write
/// goes out through `send(MSG_NOSIGNAL)`, so a vanished client can never raise
/// SIGPIPE in the process hosting the server (tests, `rtcat demo`).
/// Not thread-safe: it belongs to the connection's thread.
final class ServerConnection {
    struct Closed: Error {}

    let fd: Int32
    /// Written (never read) by `TestServer.stop()`; readable means "give up now".
    let wakeFD: Int32
    private var ssl: OpaquePointer?
    private var readBIO: OpaquePointer?
    private var writeBIO: OpaquePointer?
    private var rawBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Bytes received but not yet consumed by the HTTP parser (pushed back after the head).
    private var pending: [UInt8] = []
    private(set) var isClosed = false
    /// Set by an abortive close with RST: nothing to drain, close at once.
    private(set) var wasReset = false
    var isTLS: Bool { ssl != nil }
    /// Told the size of every write once the kernel has taken all of it (plaintext bytes).
    private let onWrite: (Int) -> Void

    init(fd: Int32, wakeFD: Int32, onWrite: @escaping (Int) -> Void = { _ in }) {
        self.fd = fd
        self.wakeFD = wakeFD
        self.onWrite = onWrite
    }

    deinit {
        if let ssl { SSL_free(ssl) }  // frees both BIOs too
    }

    /// Runs the server side of the TLS handshake. Throws on any failure (bad client cert, garbage).
    func startTLS(context: OpaquePointer) throws {
        guard let ssl = SSL_new(context) else { throw Closed() }
        let rbio = BIO_new(BIO_s_mem()), wbio = BIO_new(BIO_s_mem())
        _ = rt_BIO_set_mem_eof_return(rbio, -1)
        SSL_set_bio(ssl, rbio, wbio)
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.readBIO = rbio
        self.writeBIO = wbio
        while true {
            let result = SSL_do_handshake(ssl)
            try flushTLS()
            if result == 1 { return }
            let error = SSL_get_error(ssl, result)
            guard error == SSL_ERROR_WANT_READ else { throw Closed() }
            try feedTLS()
        }
    }

    /// The subject of the verified client certificate (mTLS), one line, or nil.
    var peerCertificateSubject: String? {
        guard let ssl, let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        guard let name = X509_get_subject_name(certificate),
              let line = X509_NAME_oneline(name, nil, 0) else { return nil }
        defer { CRYPTO_free(line, #fileID, #line) }
        return String(cString: line)
    }

    // MARK: Reading

    /// Reads at least one byte into `buffer`; returns 0 at end of stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if !pending.isEmpty {
            let n = min(buffer.count, pending.count)
            pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            pending.removeFirst(n)
            return n
        }
        guard let ssl else { return try Socket.receive(fd, buffer) }
        while true {
            let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
            if n > 0 { return Int(n) }
            let error = SSL_get_error(ssl, n)
            if error == SSL_ERROR_ZERO_RETURN { return 0 }
            guard error == SSL_ERROR_WANT_READ else { throw Closed() }
            try flushTLS()
            if try !feedTLS() { return 0 }
        }
    }

    /// Puts bytes back in front of the stream (the HTTP parser read past the head).
    func unread(_ bytes: ArraySlice<UInt8>) {
        pending.insert(contentsOf: bytes, at: 0)
    }

    /// Moves ciphertext from the socket into OpenSSL. Returns false at end of stream.
    @discardableResult
    private func feedTLS() throws -> Bool {
        let n = try rawBuffer.withUnsafeMutableBytes { try Socket.receive(fd, $0) }
        if n == 0 { return false }
        _ = rawBuffer.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32(n)) }
        return true
    }

    // MARK: Writing

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !isClosed else { throw Closed() }
        guard bytes.count > 0 else { return }
        if let ssl {
            var offset = 0
            while offset < bytes.count {
                let chunk = min(bytes.count - offset, 16 * 1024)
                let n = SSL_write(ssl, bytes.baseAddress! + offset, Int32(chunk))
                guard n > 0 else { throw Closed() }
                offset += Int(n)
                try flushTLS()
            }
        } else {
            try Socket.sendAll(fd, bytes)
        }
        onWrite(bytes.count)
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Writes `bytes` straight to the socket, beneath TLS when the connection has it: bytes
    /// that are not a TLS record (a corrupted or foreign stream) where the client expects one.
    func writeBeneathTLS(_ bytes: [UInt8]) throws {
        guard !isClosed else { throw Closed() }
        try flushTLS()
        try bytes.withUnsafeBytes { try Socket.sendAll(fd, $0) }
    }

    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    private func flushTLS() throws {
        guard let writeBIO else { return }
        while rt_BIO_ctrl_pending(writeBIO) > 0 {
            let n = rawBuffer.withUnsafeMutableBytes { BIO_read(writeBIO, $0.baseAddress, Int32($0.count)) }
            guard n > 0 else { return }
            try rawBuffer.withUnsafeBytes { try Socket.sendAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<Int(n)])) }
        }
    }

    // MARK: Waiting

    enum InputReadiness { case ready, timeout, stopped }

    /// Waits until input can be read without blocking long (buffered bytes, decrypted TLS
    /// data, or a readable socket), `milliseconds` pass (-1: forever), or the server stops.
    func waitForInput(milliseconds: Int) -> InputReadiness {
        if !pending.isEmpty { return .ready }
        if let ssl, SSL_pending(ssl) > 0 { return .ready }
        // Whole TLS records already moved from the socket into the memory BIO (one recv can
        // carry several): SSL_pending does not count them, and the socket will not wake us.
        if ssl != nil, let readBIO, BIO_ctrl_pending(readBIO) > 0 { return .ready }
        let result = Socket.waitReadable(fd, orWake: wakeFD, timeoutMilliseconds: Int32(clamping: milliseconds))
        if result.woken { return .stopped }
        return result.ready ? .ready : .timeout
    }

    /// Sleeps up to `milliseconds`, returning early (false) when the server stops or the
    /// peer hangs up. Incoming data does not end the sleep.
    func sleep(milliseconds: Int) -> Bool {
        guard milliseconds > 0 else { return !isClosed }
        let result = Socket.waitReadable(
            fd, events: Socket.pollReadHangUp, orWake: wakeFD, timeoutMilliseconds: Int32(clamping: milliseconds))
        return !(result.ready || result.woken)
    }

    /// Blocks until the peer hangs up or the server stops, reading nothing: the peer's
    /// writes stall once the kernel's buffers are full (its TCP window stays shut).
    func holdWithoutReading() {
        _ = Socket.waitReadable(fd, events: Socket.pollReadHangUp, orWake: wakeFD, timeoutMilliseconds: -1)
    }

    /// Blocks until the peer closes the connection or the server stops, discarding input.
    func holdUntilClosed() {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = Socket.waitReadable(fd, orWake: wakeFD, timeoutMilliseconds: -1)
            if result.woken { return }
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 && !(n < 0 && errno == EINTR) { return }
        }
    }

    // MARK: Closing

    /// Closes cleanly: TLS close_notify, then FIN.
    func close() {
        guard !isClosed else { return }
        if let ssl {
            SSL_shutdown(ssl)
            try? flushTLS()
        }
        isClosed = true
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes abruptly: no TLS close_notify; with `reset`, a TCP RST instead of a FIN.
    func abort(reset: Bool) {
        guard !isClosed else { return }
        isClosed = true
        wasReset = reset
        if reset { Socket.setAbortiveClose(fd) } else { shutdown(fd, Int32(SHUT_WR)) }
    }
}

extension ServerConnection {
    /// Before the descriptor is closed, waits briefly (≤ 500 ms) for the client to close
    /// its side, discarding input: closing with unread bytes would turn the clean FIN
    /// the client expects into an RST. Skipped after an abortive close.
    func drainBeforeClose() {
        guard isClosed, !wasReset else { return }
        var scratch = [UInt8](repeating: 0, count: 4096)
        var remaining = 500
        while remaining > 0 {
            let result = Socket.waitReadable(fd, orWake: wakeFD, timeoutMilliseconds: 50)
            if result.woken { return }
            if !result.ready {
                remaining -= 50
                continue
            }
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) { return }
        }
    }
}
