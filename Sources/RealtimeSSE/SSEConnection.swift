#if os(Linux)
import CCurl
import RealtimeCore
import RealtimeIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One SSE attempt's loop-thread state: the curl easy handle, the response head, the
/// parser, the timers and the back-pressure flags.
///
/// **Thread rule:** created and used on the ``EventLoop`` thread only (``SSETransport``
/// reaches it through a ``LoopBoundBox``). Curl calls ``received(_:_:)`` and
/// ``headerLine(_:_:)`` from inside `curl_multi_socket_action`, so those never remove the
/// easy handle themselves: they return 0 to make curl abort, and the completion tears down.
final class SSEConnection {
    private let request: TransportRequest
    private let options: SSETransport.Options
    private let loop: EventLoop
    private let events: BoundedChannel<TransportEvent>

    private var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var parser: SSEParser
    private var head = SSEResponseHead()
    private var phase = Phase.connecting
    /// The request being sent: the attempt's own, then each followed redirect's.
    private var hop: SSEHop
    /// Redirects followed so far in this attempt.
    private var redirects = 0
    /// The request a redirect asked for, sent once that redirect's transfer completes.
    private var nextHop: SSEHop?
    /// Body bytes of the redirect response being followed, discarded.
    private var redirectBodyBytes = 0
    /// A redirect's body is read (so its connection can be reused) up to this many bytes,
    /// then cut: it may be endless, and nobody reads it.
    static let redirectBodyLimit = 64 * 1024
    /// Set by a callback that aborts the transfer, to report instead of curl's
    /// `CURLE_WRITE_ERROR`.
    private var abortReason: RealtimeError?
    private var connectTimer: TimerHandle?
    private var idleTimer: TimerHandle?
    /// Armed by ``verify(within:)`` after a network path change.
    private var probeTimer: TimerHandle?
    private var lastByte = ContinuousClock.now
    /// The channel is full: pause at the next chunk curl offers.
    private var pauseRequested = false
    /// The transfer is paused (`CURL_WRITEFUNC_PAUSE` returned) until ``resume()``.
    private var paused = false
    /// Events parsed during the current curl action, handed to the channel together when
    /// curl returns (one consumer wake-up per action rather than per write callback).
    private var pending: [TransportEvent] = []
    /// Flush early at this many pending events, so a long action cannot overshoot the
    /// channel's capacity by much.
    private let flushThreshold: Int
    /// Where the current batch's event data goes (see ``SSEDataArena``); nil after a hand-over.
    private var arena: SSEDataArena?
    /// Bytes ``arena`` can still take (0 when there is none): checked per event without
    /// touching the arena or its block.
    private var arenaRoom = 0
    /// The block under it, filled across batches until the next event does not fit, then
    /// replaced by one from the shared pool.
    private var block: SSEArenaBlock?
    /// Event data up to this size goes through the arena (measured, same run: 1.5–2× the
    /// events/s at 128 B and 1 KiB, even at 4 KiB); larger data is decoded at once, so a huge
    /// event is not held twice.
    static let deferredTextLimit = 64 * 1024

    private enum Phase {
        /// Before the final response head: DNS, connect, TLS, request, 1xx, redirects.
        case connecting
        /// 200 + `text/event-stream`: the body goes to the parser.
        case open
        /// 204: the server asked not to reconnect.
        case noContent
        /// Any other final status: keep a bounded excerpt of the body for the error.
        case errorBody(status: Int, retryAfter: Duration?, excerpt: [UInt8])
        case finished
    }

    init(request: TransportRequest, options: SSETransport.Options, loop: EventLoop, events: BoundedChannel<TransportEvent>) {
        self.request = request
        self.options = options
        self.loop = loop
        self.events = events
        self.parser = SSEParser(limits: options.limits, lastEventID: request.lastEventID ?? "")
        self.hop = SSEHop(request: request)
        self.flushThreshold = max(1, min(64, request.eventBufferCapacity / 2))
    }

    private var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    // MARK: Lifecycle

    func start() {
        if let problem = SSERequestValidation.problem(in: request) {
            finish(TransportEnd(clean: false, error: problem, requestWasDelivered: false))
            return
        }
        guard CurlGlobal.ensureInitialized(), let easy = curl_easy_init() else {
            finish(TransportEnd(clean: false, error: RealtimeError(.internal, detail: "curl_easy_init failed"), requestWasDelivered: false))
            return
        }
        self.easy = easy
        if let problem = configure(easy) {
            finish(TransportEnd(clean: false, error: problem, requestWasDelivered: false))
            return
        }
        let added = CurlMultiDriver.on(loop).add(easy) { [self] code in completed(code) }
        guard added else {
            finish(TransportEnd(clean: false, error: RealtimeError(.internal, detail: "curl_multi_add_handle failed"), requestWasDelivered: false))
            return
        }
        connectTimer = loop.schedule(after: request.connectTimeout) { [self] in
            connectTimer = nil
            finish(TransportEnd(clean: false, error: RealtimeError(.connectTimeout, detail: "no response head within \(request.connectTimeout)"), requestWasDelivered: head.sawResponse))
        }
    }

    /// User close or consumer cancellation.
    func cancel() {
        guard !isFinished else { return }
        finish(TransportEnd(clean: false, error: .cancelled, requestWasDelivered: head.sawResponse))
    }

    /// The consumer drained the channel: read again.
    func resume() {
        guard !isFinished else { return }
        pauseRequested = false
        guard paused, let easy else { return }
        paused = false
        lastByte = .now
        // May deliver the held chunk synchronously through received(_:_:).
        _ = curl_easy_pause(easy, rt_curlpause_cont())
        flush()
        if !isFinished { CurlMultiDriver.on(loop).kick() }
    }

    /// Transfer over (curl finished it by itself, or a callback aborted it).
    private func completed(_ code: CURLcode) {
        guard !isFinished else { return }
        if let next = nextHop {
            // Whatever ended the redirect's body (its end, our cut, a reset), its head said
            // where to go.
            nextHop = nil
            follow(next)
            return
        }
        let delivered = head.sawResponse
        if let abortReason {
            finish(TransportEnd(clean: false, error: abortReason, requestWasDelivered: delivered))
            return
        }
        switch phase {
        case .open:
            if code == CURLE_OK {
                // WHATWG §9.2.6: an event not terminated by a blank line is discarded.
                parser.finish()
                finish(TransportEnd(clean: true))
            } else {
                finish(TransportEnd(clean: false, error: CurlErrorMapping.error(for: code, opened: true)))
            }
        case .noContent:
            finish(TransportEnd(clean: true, doNotReconnect: true))
        case .errorBody(let status, let retryAfter, let excerpt):
            // Reported even if the body was cut: the status is what matters.
            let text = excerpt.isEmpty ? nil : String(decoding: excerpt, as: UTF8.self)
            var error = RealtimeError.httpStatus(status, bodyExcerpt: text, retryAfter: retryAfter)
            // Only a proxy answers 407 (RFC 9110 §15.5.8): plain `http` through a proxy.
            if status == 407 { error = RealtimeError(.proxy, detail: "proxy authentication required", status: status, bodyExcerpt: text) }
            finish(TransportEnd(clean: false, error: error))
        case .connecting:
            let error = code == CURLE_OK
                ? RealtimeError(.protocolViolation, detail: "response ended before its head")
                : CurlErrorMapping.error(for: code, opened: false, proxyStatus: proxyConnectStatus())
            finish(TransportEnd(clean: false, error: error, requestWasDelivered: delivered))
        case .finished:
            break
        }
    }

    /// The single exit: frees everything, then yields `ended` and finishes the channel.
    private func finish(_ end: TransportEnd) {
        guard !isFinished else { return }
        // Complete events parsed before the end are delivered, then `ended`.
        flush()
        phase = .finished
        if let easy {
            CurlMultiDriver.on(loop).remove(easy)
            curl_easy_cleanup(easy)
            self.easy = nil
        }
        if let headerList {
            curl_slist_free_all(headerList)
            self.headerList = nil
        }
        if let t = connectTimer { loop.cancel(t) }
        if let t = idleTimer { loop.cancel(t) }
        if let t = probeTimer { loop.cancel(t) }
        connectTimer = nil
        idleTimer = nil
        probeTimer = nil
        events.send(.ended(end))
        events.finish()
    }

    // MARK: Curl callbacks

    /// `CURLOPT_WRITEFUNCTION`: body bytes. Returns the count consumed, 0 to abort, or
    /// `CURL_WRITEFUNC_PAUSE` to have curl hold this chunk until ``resume()``.
    fileprivate func received(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        lastByte = .now
        switch phase {
        case .open:
            if pauseRequested {
                pauseRequested = false
                paused = true
                return rt_curl_writefunc_pause()
            }
            guard let bytes, count > 0 else { return count }
            do {
                let wasEmpty = pending.isEmpty
                // Appending to a local array, not the stored property, spares a dynamic
                // exclusivity check per event; the swaps keep the array's storage.
                var batch: [TransportEvent] = []
                swap(&batch, &pending)
                let fed = Result {
                    try parser.feed(UnsafeRawBufferPointer(start: bytes, count: count)) { output in
                        if case .retry(let ms) = output { batch.append(.retryHint(.milliseconds(ms))) }
                    } borrowing: { e in
                        if e.data.count <= Self.deferredTextLimit {
                            // Built later by the consumer's thread (see SSEDataArena).
                            let text = deferredText(e)
                            batch.append(.message(Message(deferredText: text, type: e.type, id: e.lastEventID)))
                        } else {
                            // Large data: one copy straight into its String, not two; its one
                            // allocation is rare per byte.
                            batch.append(.message(.sse(type: e.type, data: e.decodedData(), id: e.lastEventID)))
                        }
                    }
                }
                swap(&batch, &pending)
                try fed.get()
                if pending.count >= flushThreshold {
                    flush()
                } else if wasEmpty, !pending.isEmpty {
                    CurlMultiDriver.on(loop).runAfterCurrentAction { [weak self] in self?.flush() }
                }
            } catch {
                abortReason = (error as? RealtimeError) ?? RealtimeError(.internal, detail: "SSE parser failed")
                return 0
            }
            return count
        case .errorBody(let status, let retryAfter, var excerpt):
            guard let bytes else { return count }
            let room = RealtimeError.maxBodyExcerpt - excerpt.count
            excerpt.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: min(room, count)))
            phase = .errorBody(status: status, retryAfter: retryAfter, excerpt: excerpt)
            // Enough for the error: stop downloading (the body may be endless).
            return excerpt.count >= RealtimeError.maxBodyExcerpt ? 0 : count
        case .connecting:
            // The body of a redirect being followed (1xx have none): discarded, and cut past
            // a bound (returning 0 ends the transfer; its completion then follows).
            redirectBodyBytes += count
            return redirectBodyBytes <= Self.redirectBodyLimit ? count : 0
        case .noContent, .finished:
            // The body of a 204, if a server sends one anyway.
            return count
        }
    }

    /// Copies an event's data into the batch's arena, on a fresh block when the current one is
    /// full; data larger than a pooled block gets a block of its own.
    @inline(__always)
    private func deferredText(_ e: SSEParser.BorrowedEvent) -> SSEDeferredText {
        let n = e.data.count
        if n > arenaRoom || arena == nil { startArena(for: n) }
        // One reference for the event; the room was checked above.
        let target = arena.unsafelyUnwrapped
        let offset = target.block.appendUnchecked(e.data)
        arenaRoom &-= n
        return SSEDeferredText(arena: target, offset: offset, count: n, isValidUTF8: e.isValidUTF8, isASCII: e.isASCII)
    }

    /// A new arena for the rest of the batch, on the current block if `n` bytes fit there, else
    /// on a fresh pooled block; data bigger than a pooled block gets an exact block of its own
    /// (and the next event a new arena on the pooled one).
    private func startArena(for n: Int) {
        let pool = SSEArenaPool.shared
        if n > pool.blockSize {
            let own = SSEDataArena(capacity: n)
            arena = own
            arenaRoom = n
            return
        }
        let room: SSEArenaBlock
        if let block, n <= block.available {
            room = block
        } else {
            room = pool.block()
            block = room
        }
        arena = SSEDataArena(block: room)
        arenaRoom = room.available
    }

    /// Hands pending events to the channel; a full channel pauses the transfer at the next
    /// chunk curl offers.
    private func flush() {
        // Events handed over keep their batch's arena; the next batch gets its own (on the
        // same block while it has room).
        arena = nil
        arenaRoom = 0
        guard !pending.isEmpty, !isFinished else { return }
        // One lock and at most one consumer wake-up for the whole batch.
        if !events.send(draining: &pending) { pauseRequested = true }
    }

    /// `CURLOPT_HEADERFUNCTION`: one header line. Returns 0 to abort.
    fileprivate func headerLine(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        lastByte = .now
        guard case .connecting = phase, let bytes else { return count }
        guard case .end = head.consume(UnsafeRawBufferPointer(start: bytes, count: count)) else { return count }
        return headEnded() ? count : 0
    }

    /// A complete response head arrived. Returns false to abort the transfer.
    private func headEnded() -> Bool {
        var status = 0
        if let easy { _ = rt_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) }
        if (100..<200).contains(status) { return true }
        if SSEHop.isRedirect(status) {
            // Followed by us, not by curl (see SSEHop): the next request is sent once this
            // response's transfer completes.
            do {
                let next = try hop.following(status: status, location: head.headers["Location"])
                guard redirects < request.maxRedirects else {
                    abortReason = RealtimeError(.redirect, detail: "more than \(request.maxRedirects) redirects", status: status)
                    return false
                }
                nextHop = next
                return true
            } catch {
                abortReason = error
                return false
            }
        }
        if let t = connectTimer {
            loop.cancel(t)
            connectTimer = nil
        }
        switch status {
        case 200:
            guard head.isEventStream else {
                abortReason = RealtimeError(.invalidContentType, detail: "Content-Type \(head.mediaType)", status: status)
                return false
            }
            phase = .open
            let info = ConnectionInfo(
                transport: .sse, url: effectiveURL(), status: status, headers: head.headers, attempt: request.attempt,
                httpVersion: negotiatedHTTPVersion())
            if !events.send(.opened(info)) { pauseRequested = true }
        case 204:
            phase = .noContent
        default:
            let retryAfter = head.headers["Retry-After"].flatMap { RetryAfter.parse($0, now: Date()) }
            phase = .errorBody(status: status, retryAfter: retryAfter, excerpt: [])
        }
        armIdleTimer(after: request.idleTimeout)
        return true
    }

    /// The proxy's answer to curl's `CONNECT` (`CURLINFO_HTTP_CONNECTCODE`), 0 when none.
    private func proxyConnectStatus() -> Int {
        var status = 0
        if let easy { _ = rt_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &status) }
        return status
    }

    /// `CURLINFO_HTTP_VERSION` as text ("1.0", "1.1", "2", "3"); nil if curl does not say.
    private func negotiatedHTTPVersion() -> String? {
        var version = 0
        guard let easy, rt_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK else { return nil }
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): return "1.0"
        case Int(CURL_HTTP_VERSION_1_1): return "1.1"
        case Int(CURL_HTTP_VERSION_2_0): return "2"
        case 30: return "3"  // CURL_HTTP_VERSION_3
        default: return nil
        }
    }

    private func effectiveURL() -> URL {
        var p: UnsafeMutablePointer<CChar>?
        if let easy, rt_easy_getinfo_str(easy, CURLINFO_EFFECTIVE_URL, &p) == CURLE_OK, let p,
            let url = URL(string: String(cString: p))
        {
            return url
        }
        return hop.url
    }

    // MARK: Redirects

    /// Sends `next` on the same easy handle (its connection may be reused from the multi
    /// handle's cache). The connect timer keeps running: it bounds the whole chain up to the
    /// final response head.
    private func follow(_ next: SSEHop) {
        guard let easy else { return }
        let driver = CurlMultiDriver.on(loop)
        driver.remove(easy)
        curl_easy_reset(easy)
        if let headerList {
            curl_slist_free_all(headerList)
            self.headerList = nil
        }
        hop = next
        redirects += 1
        redirectBodyBytes = 0
        if let problem = configure(easy) {
            finish(TransportEnd(clean: false, error: problem, requestWasDelivered: head.sawResponse))
            return
        }
        guard driver.add(easy, completion: { [self] code in completed(code) }) else {
            finish(TransportEnd(
                clean: false, error: RealtimeError(.internal, detail: "curl_multi_add_handle failed"),
                requestWasDelivered: head.sawResponse))
            return
        }
    }

    // MARK: Idle timeout

    /// One timer per idle period rather than per chunk: when it fires it checks the time of
    /// the last byte and re-arms for the remainder, so streaming costs no timer churn.
    private func armIdleTimer(after delay: Duration?) {
        guard let delay, request.idleTimeout != nil else { return }
        idleTimer = loop.schedule(after: delay) { [self] in
            idleTimer = nil
            checkIdle()
        }
    }

    private func checkIdle() {
        guard !isFinished, let limit = request.idleTimeout else { return }
        if paused {
            // A slow consumer is not a dead connection.
            armIdleTimer(after: limit)
            return
        }
        let silent = ContinuousClock.now - lastByte
        if silent >= limit {
            finish(TransportEnd(clean: false, error: RealtimeError(.idleTimeout, detail: "no byte for \(limit)")))
        } else {
            armIdleTimer(after: limit - silent)
        }
    }

    // MARK: Path-change probe

    /// The network path changed: a byte must arrive within `timeout`. Only the first byte
    /// after now matters, so one timer suffices; once a byte has come the normal idle
    /// timeout is all that applies again. A later path change starts a new probe.
    func verify(within timeout: Duration) {
        guard case .open = phase else { return }
        if let t = probeTimer { loop.cancel(t) }
        let since = ContinuousClock.now
        probeTimer = loop.schedule(after: timeout) { [self] in
            probeTimer = nil
            guard !isFinished, !paused, lastByte < since else { return }
            finish(TransportEnd(clean: false, error: RealtimeError(
                .idleTimeout, detail: "no byte within \(timeout) after the network path changed")))
        }
    }

    // MARK: Configuration

    /// Sets every option on `easy`; returns an error for a setting curl refuses.
    private func configure(_ easy: UnsafeMutableRawPointer) -> RealtimeError? {
        var failure: RealtimeError?
        func check(_ code: CURLcode, _ what: String) {
            if code != CURLE_OK, failure == nil {
                failure = RealtimeError(.invalidConfiguration, detail: "\(what): curl \(code.rawValue)")
            }
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        check(rt_easy_setopt_str(easy, CURLOPT_URL, hop.url.absoluteString), "url")
        check(rt_easy_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "protocols")
        // Never let curl raise or catch signals in the host process.
        check(rt_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "nosignal")
        check(rt_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 1), "noprogress")
        // Redirects are ours (see SSEHop and headEnded()): curl 7.88 breaks RFC 9110 rules.
        check(rt_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0), "followlocation")
        check(rt_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout)), "connect timeout")
        check(rt_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, min(max(options.receiveBufferSize, 1024), 512 * 1024)), "buffer size")
        check(rt_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1), "proxy headers")

        check(rt_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION) { p, size, n, me in
            Unmanaged<SSEConnection>.fromOpaque(me!).takeUnretainedValue().received(p, size * n)
        }, "write function")
        check(rt_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me), "write data")
        check(rt_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION) { p, size, n, me in
            Unmanaged<SSEConnection>.fromOpaque(me!).takeUnretainedValue().headerLine(p, size * n)
        }, "header function")
        check(rt_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me), "header data")

        // Method and body.
        let method = hop.method
        if method == "POST" {
            check(rt_easy_setopt_long(easy, CURLOPT_POST, 1), "post")
        } else if method != "GET" || hop.body != nil {
            check(rt_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, method), "method")
        }
        if hop.body != nil || method == "POST" {
            let body = hop.body ?? []
            // Size first, so a body with NUL bytes is copied whole.
            check(rt_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)), "body size")
            check(body.withUnsafeBytes { rt_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)) }, "body")
        }

        // Headers: ours first, then the user's (which may replace Accept or User-Agent).
        var list: UnsafeMutablePointer<curl_slist>?
        func add(_ line: String) { list = curl_slist_append(list, line) }
        if !hop.headers.contains("Accept") { add("Accept: text/event-stream") }
        if !hop.headers.contains("Cache-Control") { add("Cache-Control: no-cache") }
        if let id = request.lastEventID, !id.isEmpty, !hop.headers.contains("Last-Event-ID") {
            add("Last-Event-ID: \(id)")
        }
        // No `Expect: 100-continue` round trip before a POST body.
        add("Expect:")
        for field in hop.headers.fields {
            // "Name;" is curl's syntax for a header with an empty value.
            add(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        headerList = list
        check(rt_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), "headers")
        if let ua = options.userAgent, !hop.headers.contains("User-Agent") {
            check(rt_easy_setopt_str(easy, CURLOPT_USERAGENT, ua), "user agent")
        }

        // HTTP version.
        let https = hop.url.scheme?.lowercased() == "https"
        let version = options.preferHTTP2 && https && CurlGlobal.supportsHTTP2 ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1)
        check(rt_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, version), "http version")

        // Proxy.
        switch options.proxy {
        case .environment: break
        case .none: check(rt_easy_setopt_str(easy, CURLOPT_PROXY, ""), "proxy")
        case .url(let p): check(rt_easy_setopt_str(easy, CURLOPT_PROXY, p), "proxy")
        }

        // TCP.
        if let ka = options.tcpKeepAlive {
            check(rt_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1), "keepalive")
            check(rt_easy_setopt_long(easy, CURLOPT_TCP_KEEPIDLE, max(1, Self.milliseconds(ka.idle) / 1000)), "keepidle")
            check(rt_easy_setopt_long(easy, CURLOPT_TCP_KEEPINTVL, max(1, Self.milliseconds(ka.interval) / 1000)), "keepintvl")
        }
        if let ut = options.tcpUserTimeout {
            // The value rides in the callback's pointer argument: no lifetime to manage.
            let ms = UInt32(clamping: max(1, Self.milliseconds(ut)))
            check(rt_easy_setopt_ptr(easy, CURLOPT_SOCKOPTDATA, UnsafeRawPointer(bitPattern: UInt(ms))), "sockopt data")
            check(rt_easy_setopt_sockopt(easy) { clientp, fd, purpose in
                if purpose == CURLSOCKTYPE_IPCXN {
                    SocketOptions.setTCPUserTimeout(fd, milliseconds: UInt32(UInt(bitPattern: clientp)))
                }
                return CURL_SOCKOPT_OK
            }, "sockopt function")
        }

        // TLS (https only; harmless for http).
        let tls = request.tls
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
        return failure
    }

    static func milliseconds(_ d: Duration) -> Int {
        let (s, a) = d.components
        if s < 0 { return 0 }
        if s > Int64(Int.max / 1000) - 1 { return Int.max / 2 }
        return Int(s) * 1000 + Int(a / 1_000_000_000_000_000)
    }
}

@available(*, unavailable)
extension SSEConnection: Sendable {}
#endif
