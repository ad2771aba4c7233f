#if os(Linux)
import CCurl
import COpenSSL
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sets the options of one easy handle for one request of an attempt, one function per
/// concern. The first option curl refuses is kept as an `invalidConfiguration` error
/// (``failure``); later calls still run, so the handle is never half-configured by surprise.
///
/// Used by ``CurlEasyTransfer`` on its loop thread; `curl_easy_reset` before each redirect's
/// request, then every function again.
struct SSECurlOptions {
    let easy: UnsafeMutableRawPointer
    /// The first refusal, naming the option (never its value, which may be a secret).
    private(set) var failure: RealtimeError?

    init(easy: UnsafeMutableRawPointer) {
        self.easy = easy
    }

    private mutating func check(_ code: CURLcode, _ what: String) {
        if code != CURLE_OK, failure == nil {
            failure = RealtimeError(.invalidConfiguration, detail: "\(what): curl \(code.rawValue)")
        }
    }

    /// URL, protocols, signals, redirects (ours), connect timeout, receive buffer.
    mutating func transfer(url: URL, connectTimeout: Duration, receiveBufferSize: Int) {
        check(rt_easy_setopt_str(easy, CURLOPT_URL, url.absoluteString), "url")
        check(rt_easy_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "protocols")
        // Never let curl raise or catch signals in the host process.
        check(rt_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "nosignal")
        check(rt_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 1), "noprogress")
        // A transfer that ends while its host name is still resolving (a connect timeout, a
        // close) must not wait for curl's resolver thread: libcurl would join it, blocking the
        // event loop, and every connection on it, for as long as getaddrinfo takes (seconds
        // with an unresponsive DNS server). The thread finishes on its own and frees its state.
        check(rt_easy_setopt_long(easy, CURLOPT_QUICK_EXIT, 1), "quick exit")
        // Redirects are ours (see SSEHop): curl 7.88 breaks RFC 9110 rules.
        check(rt_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0), "followlocation")
        check(rt_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout)), "connect timeout")
        check(rt_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, min(max(receiveBufferSize, 1024), 512 * 1024)), "buffer size")
        check(rt_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1), "proxy headers")
        // Close-on-exec sockets: a process the application spawns keeps no connection open.
        check(rt_easy_setopt_cloexec_sockets(easy), "close-on-exec sockets")
    }

    /// Where curl writes its message for a failure (`CURL_ERROR_SIZE` bytes, owned by the
    /// caller for the handle's lifetime).
    mutating func errorBuffer(_ buffer: UnsafeMutablePointer<CChar>) {
        buffer[0] = 0
        check(rt_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, buffer), "error buffer")
    }

    /// The write, header and pre-request callbacks, which reach the unretained
    /// ``CurlEasyTransfer`` at `context` and go on to its connection (both outlive the handle:
    /// it is freed before they go).
    mutating func callbacks(context: UnsafeMutableRawPointer) {
        check(rt_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION) { p, size, n, me in
            Unmanaged<CurlEasyTransfer>.fromOpaque(me!).takeUnretainedValue().callbacks!.received(p, size * n)
        }, "write function")
        check(rt_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context), "write data")
        check(rt_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION) { p, size, n, me in
            Unmanaged<CurlEasyTransfer>.fromOpaque(me!).takeUnretainedValue().callbacks!.headerLine(p, size * n)
        }, "header function")
        check(rt_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, context), "header data")
        // Called once connected (TLS included) and before the request is built and sent.
        check(rt_easy_setopt_prereq(easy) { me, _, _, _, _ in
            Unmanaged<CurlEasyTransfer>.fromOpaque(me!).takeUnretainedValue().callbacks!.requestStarting()
            return 0  // CURL_PREREQFUNC_OK
        }, "prereq function")
        check(rt_easy_setopt_ptr(easy, CURLOPT_PREREQDATA, context), "prereq data")
    }

    /// The method, and the body copied into curl (size first, so a body with NUL bytes is
    /// copied whole).
    mutating func methodAndBody(_ hop: SSEHop) {
        let method = hop.method
        if method == "POST" {
            check(rt_easy_setopt_long(easy, CURLOPT_POST, 1), "post")
        } else if method != "GET" || hop.body != nil {
            check(rt_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, method), "method")
        }
        if hop.body != nil || method == "POST" {
            let body = hop.body ?? []
            check(rt_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)), "body size")
            check(body.withUnsafeBytes { rt_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)) }, "body")
        }
    }

    /// Header fields: ours first, then the user's (which may replace `Accept` or
    /// `User-Agent`). Returns the list curl now points to; the caller frees it with
    /// `curl_slist_free_all` after the handle is reset or cleaned up.
    mutating func headers(_ hop: SSEHop, lastEventID: String?, userAgent: String?) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        func add(_ line: String) { list = curl_slist_append(list, line) }
        if !hop.headers.contains("Accept") { add("Accept: text/event-stream") }
        if !hop.headers.contains("Cache-Control") { add("Cache-Control: no-cache") }
        if let id = lastEventID, !id.isEmpty, !hop.headers.contains("Last-Event-ID") {
            add("Last-Event-ID: \(id)")
        }
        // No `Expect: 100-continue` round trip before a POST body.
        add("Expect:")
        for field in hop.headers.fields {
            // "Name;" is curl's syntax for a header with an empty value.
            add(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        check(rt_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), "headers")
        if let userAgent, !hop.headers.contains("User-Agent") {
            check(rt_easy_setopt_str(easy, CURLOPT_USERAGENT, userAgent), "user agent")
        }
        return list
    }

    /// `Accept-Encoding` with every coding libcurl decodes (``CurlGlobal/contentEncodings``),
    /// and decoding of the body on. A user `Accept-Encoding` header replaces the advertised
    /// list; decoding stays on either way.
    mutating func contentEncoding() {
        let names = CurlGlobal.contentEncodings
        guard !names.isEmpty else { return }
        check(rt_easy_setopt_str(easy, CURLOPT_ACCEPT_ENCODING, names.joined(separator: ", ")), "accept encoding")
    }

    /// HTTP/2 over TLS when preferred and built in (ALPN); HTTP/1.1 otherwise. With HTTP/2
    /// the transfer waits for a connection to the origin whose protocol is not yet known
    /// rather than opening another (`CURLOPT_PIPEWAIT`), so streams started together share it.
    mutating func httpVersion(for url: URL, preferHTTP2: Bool) {
        let https = url.scheme?.lowercased() == "https"
        let http2 = preferHTTP2 && https && CurlGlobal.supportsHTTP2
        check(rt_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, http2 ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1)), "http version")
        if http2 { check(rt_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1), "pipewait") }
    }

    /// The environment's proxy (curl's own rules), none, or the given one.
    mutating func proxy(_ proxy: ProxyConfiguration) {
        switch proxy {
        case .environment: break
        case .none: check(rt_easy_setopt_str(easy, CURLOPT_PROXY, ""), "proxy")
        case .url(let p): check(rt_easy_setopt_str(easy, CURLOPT_PROXY, p), "proxy")
        }
    }

    /// Keep-alive probes and `TCP_USER_TIMEOUT` (see ``SSEOptions``). libcurl sets
    /// the probe times; the probe count and the user timeout are set on the socket it creates.
    mutating func tcp(keepAlive: TCPKeepAlive?, userTimeout: Duration?) {
        if let keepAlive {
            check(rt_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1), "keepalive")
            check(rt_easy_setopt_long(easy, CURLOPT_TCP_KEEPIDLE, Int(keepAlive.idleSeconds)), "keepidle")
            check(rt_easy_setopt_long(easy, CURLOPT_TCP_KEEPINTVL, Int(keepAlive.intervalSeconds)), "keepintvl")
        }
        let socket = SocketTuning(keepAliveCount: keepAlive?.probeCount, userTimeout: userTimeout)
        guard socket.bits != 0 else { return }
        // The settings ride in the callback's pointer argument: no lifetime to manage.
        check(rt_easy_setopt_ptr(easy, CURLOPT_SOCKOPTDATA, UnsafeRawPointer(bitPattern: socket.bits)), "sockopt data")
        check(rt_easy_setopt_sockopt(easy) { clientp, fd, purpose in
            if purpose == CURLSOCKTYPE_IPCXN { SocketTuning(bits: UInt(bitPattern: clientp)).apply(to: fd) }
            return CURL_SOCKOPT_OK
        }, "sockopt function")
    }

    /// Verification, trust roots, client certificate, pinned keys (https only; harmless for
    /// http).
    mutating func tls(_ tls: TLSConfiguration) {
        // TLS 1.2 or later, as on `wss`: a server that offers less fails the same way on both.
        check(rt_easy_setopt_long(easy, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)), "TLS version")
        switch tls.verification {
        case .full:
            check(rt_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1), "verifypeer")
            check(rt_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2), "verifyhost")
        case .insecureNoVerification:
            check(rt_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0), "verifypeer")
            check(rt_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0), "verifyhost")
        }
        if case .file(let path) = tls.trustRoots {
            check(rt_easy_setopt_str(easy, CURLOPT_CAINFO, path), "ca file")
            // The bundle must be the *only* roots: drop the built-in CA directory too.
            check(rt_easy_setopt_str(easy, CURLOPT_CAPATH, nil), "ca path")
        }
        if let cert = tls.clientCertificateFile { check(rt_easy_setopt_str(easy, CURLOPT_SSLCERT, cert), "client certificate") }
        if let key = tls.clientKeyFile { check(rt_easy_setopt_str(easy, CURLOPT_SSLKEY, key), "client key") }
        if !tls.pinnedPublicKeys.isEmpty {
            check(rt_easy_setopt_str(easy, CURLOPT_PINNEDPUBLICKEY, tls.pinnedPublicKeys.joined(separator: ";")), "pinned public key")
        }
        // libcurl builds an OpenSSL context per connection; with this mode OpenSSL frees the
        // connection's record buffers (about 34 KiB) whenever they are empty rather than
        // keeping them while the stream is quiet.
        check(rt_easy_setopt_ssl_ctx(easy) { _, context, _ in
            if let context { _ = rt_SSL_CTX_set_mode(OpaquePointer(context), Int(SSL_MODE_RELEASE_BUFFERS)) }
            return CURLE_OK
        }, "ssl context function")
    }

    /// Whole milliseconds of `d`, 0 for a negative duration, saturating far below `Int.max`.
    static func milliseconds(_ d: Duration) -> Int {
        let (s, a) = d.components
        if s < 0 { return 0 }
        if s > Int64(Int.max / 1000) - 1 { return Int.max / 2 }
        return Int(s) * 1000 + Int(a / 1_000_000_000_000_000)
    }
}

/// The socket options libcurl cannot set itself, packed into one word for the socket callback:
/// the `TCP_USER_TIMEOUT` in milliseconds (low 32 bits, 0 for none) and the keep-alive probe
/// count (next 8 bits, 0 for none).
package struct SocketTuning {
    package let bits: UInt

    package init(bits: UInt) { self.bits = bits }

    package init(keepAliveCount: Int32?, userTimeout: Duration?) {
        let ms = userTimeout.map { UInt(UInt32(clamping: max(1, $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000))) } ?? 0
        let count = keepAliveCount.map { UInt(min(max($0, 1), 255)) } ?? 0
        bits = ms | count << 32
    }

    package var userTimeoutMilliseconds: UInt32 { UInt32(truncatingIfNeeded: bits) }
    package var keepAliveCount: Int32 { Int32(truncatingIfNeeded: (bits >> 32) & 0xFF) }

    package func apply(to fd: Int32) {
        if userTimeoutMilliseconds != 0 { SocketOptions.setTCPUserTimeout(fd, milliseconds: userTimeoutMilliseconds) }
        if keepAliveCount != 0 { SocketOptions.setKeepAliveCount(fd, keepAliveCount) }
    }
}
#endif
