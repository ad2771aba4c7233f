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
/// The jobs live in their own files: curl options (``SSECurlOptions``), the curl callbacks
/// and the response head (`+Callbacks`), redirects (`+Redirects`), timers (`+Timers`) and the
/// event batch (``SSEEventBatcher``). This file holds the life cycle: start, pause and resume,
/// completion, and the single exit ``finish(_:)``.
///
/// **Thread rule:** created and used on the ``EventLoop`` thread only (``SSETransport``
/// reaches it through a ``LoopBoundBox``). Curl calls ``received(_:_:)`` and
/// ``headerLine(_:_:)`` from inside `curl_multi_socket_action`, so those never remove the
/// easy handle themselves: they return 0 to make curl abort, and the completion tears down.
final class SSEConnection {
    let request: TransportRequest
    let options: SSETransport.Options
    let loop: EventLoop
    /// Where the attempt's events go (the owner's sink).
    var events = TransportOutlet()

    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var parser: SSEParser
    var head = SSEResponseHead()
    var phase = Phase.connecting
    /// The request being sent: the attempt's own, then each followed redirect's.
    var hop: SSEHop
    /// Redirects followed so far in this attempt.
    var redirects = 0
    /// The request a redirect asked for, sent once that redirect's transfer completes.
    var nextHop: SSEHop?
    /// Body bytes of the redirect response being followed, discarded.
    var redirectBodyBytes = 0
    /// Set by a callback that aborts the transfer, to report instead of curl's
    /// `CURLE_WRITE_ERROR`.
    var abortReason: RealtimeError?
    var connectTimer: TimerHandle?
    var idleTimer: TimerHandle?
    /// Armed by ``verify(within:)`` after a network path change.
    var probeTimer: TimerHandle?
    var lastByte = ContinuousClock.now
    /// The channel is full: pause at the next chunk curl offers.
    var pauseRequested = false
    /// The transfer is paused (`CURL_WRITEFUNC_PAUSE` returned) until ``resume()``.
    var paused = false
    /// The channel is full: the transfer is paused, or will be at the next chunk. Silence
    /// then does not count against the server (idle timeout, path-change probe).
    var waitsForConsumer: Bool { paused || pauseRequested }
    /// Events parsed during the current curl action, handed to the channel together when
    /// curl returns.
    var batcher: SSEEventBatcher
    /// Set by curl's pre-request callback: connected (TLS included) and about to build and
    /// send the request. From then on a byte of the request may reach the server.
    var requestStarting = false
    /// `host:port` of the proxy the transfer goes through, nil when direct (for messages).
    var proxyEndpoint: String?
    /// curl's message for the last failure (`CURLOPT_ERRORBUFFER`, `CURL_ERROR_SIZE` bytes).
    let errorBuffer: UnsafeMutablePointer<CChar>

    enum Phase {
        /// Before the final response head: DNS, connect, TLS, request, 1xx, redirects.
        case connecting
        /// 200 + `text/event-stream`: the body goes to the parser.
        case open
        /// 204: the server asked not to reconnect.
        case noContent
        /// Any other final status, or a 200 that is not `text/event-stream` (`mediaType`
        /// set): keep a bounded excerpt of the body for the error (an API's JSON error text).
        case errorBody(status: Int, retryAfter: Duration?, mediaType: String? = nil, excerpt: [UInt8])
        /// 200 + `application/json` with ``SSETransport/Options/jsonBodyLimit`` set: the whole
        /// body becomes one message at its end.
        case jsonBody([UInt8])
        case finished
    }

    init(request: TransportRequest, options: SSETransport.Options, loop: EventLoop, sink: any TransportSink) {
        self.request = request
        self.options = options
        self.loop = loop
        self.parser = SSEParser(limits: options.limits, lastEventID: request.lastEventID ?? "", strictUTF8: options.strictUTF8,
            reportsComments: options.reportsComments)
        self.hop = SSEHop(request: request)
        self.batcher = SSEEventBatcher(
            channelCapacity: request.eventBufferCapacity, cursor: SSEArenaCursor.on(loop), packs: request.prefersMessageBatches)
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        events.attach(sink)
    }

    deinit {
        // The handle, which writes here, is gone by now (finish() runs before the last release).
        errorBuffer.deallocate()
    }

    var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    // MARK: Lifecycle

    func start() {
        let environment = ProcessInfo.processInfo.environment
        if let problem = SSERequestValidation.problem(in: request, proxy: options.proxy, environment: environment) {
            finish(TransportEnd(clean: false, error: problem, requestWasDelivered: false))
            return
        }
        proxyEndpoint = SSERequestValidation.proxyEndpoint(
            options.proxy, url: request.url, environment: environment)
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
        armConnectTimer()
    }

    /// Sets every option of the current hop on `easy`; returns an error for a setting curl
    /// refuses.
    func configure(_ easy: UnsafeMutableRawPointer) -> RealtimeError? {
        var o = SSECurlOptions(easy: easy)
        o.transfer(url: hop.url, connectTimeout: request.connectTimeout, receiveBufferSize: options.receiveBufferSize)
        o.errorBuffer(errorBuffer)
        o.callbacks(context: Unmanaged.passUnretained(self).toOpaque())
        o.methodAndBody(hop)
        headerList = o.headers(hop, lastEventID: request.lastEventID, userAgent: options.userAgent)
        o.contentEncoding()
        o.httpVersion(for: hop.url, preferHTTP2: options.preferHTTP2)
        o.proxy(options.proxy)
        o.tcp(keepAlive: options.tcpKeepAlive, userTimeout: options.tcpUserTimeout)
        o.tls(request.tls)
        return o.failure
    }

    /// User close or consumer cancellation.
    func cancel() {
        guard !isFinished else { return }
        finish(TransportEnd(clean: false, error: .cancelled, requestWasDelivered: requestMayHaveBeenDelivered()))
    }

    /// The consumer drained the channel: read again.
    func resume() {
        guard !isFinished else { return }
        // The silence while the consumer was behind was its own, not the server's.
        if waitsForConsumer { lastByte = .now }
        pauseRequested = false
        guard paused, let easy else { return }
        paused = false
        // May deliver the held chunk synchronously through received(_:_:).
        _ = curl_easy_pause(easy, rt_curlpause_cont())
        flush()
        if !isFinished { CurlMultiDriver.on(loop).kick() }
    }

    /// Hands pending events to the channel; a full channel pauses the transfer at the next
    /// chunk curl offers.
    func flush() {
        batcher.endBatch()
        guard !batcher.pending.isEmpty, !isFinished else { return }
        // One lock and at most one consumer wake-up for the whole batch.
        if !events.send(draining: &batcher.pending) { pauseRequested = true }
    }

    /// Transfer over (curl finished it by itself, or a callback aborted it).
    func completed(_ code: CURLcode) {
        guard !isFinished else { return }
        if let next = nextHop {
            // Whatever ended the redirect's body (its end, our cut, a reset), its head said
            // where to go.
            nextHop = nil
            follow(next)
            return
        }
        let delivered = requestMayHaveBeenDelivered(failure: code)
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
                finish(TransportEnd(clean: false, error: curlError(code, stage: .open)))
            }
        case .noContent:
            finish(TransportEnd(clean: true, doNotReconnect: true))
        case .jsonBody(let body):
            guard code == CURLE_OK else {
                finish(TransportEnd(clean: false, error: curlError(code, stage: .open)))
                return
            }
            // A body that is not UTF-8 cannot be JSON (RFC 8259 §8.1).
            guard let text = String(validating: body, as: UTF8.self) else {
                finish(TransportEnd(clean: false, error: RealtimeError(.invalidUTF8, detail: "JSON body is not UTF-8")))
                return
            }
            _ = events.send(.message(Message(content: .text(text))))
            finish(TransportEnd(clean: true, doNotReconnect: true))
        case .errorBody(let status, let retryAfter, let mediaType, let excerpt):
            let error = mediaType.map {
                RealtimeError(.invalidContentType, detail: "Content-Type \($0)", status: status, bodyExcerpt: RealtimeError.excerpt(bytes: excerpt))
            } ?? Self.statusError(status, retryAfter: retryAfter, excerpt: excerpt)
            finish(TransportEnd(clean: false, error: error))
        case .connecting:
            let error = code == CURLE_OK
                ? RealtimeError(.protocolViolation, detail: "response ended before its head")
                : curlError(code, stage: delivered ? .requestSent : .beforeRequest)
            finish(TransportEnd(clean: false, error: error, requestWasDelivered: delivered))
        case .finished:
            break
        }
    }

    /// Whether any byte of the request may have reached the server: a response was seen, or
    /// curl got as far as sending it (``requestStarting``). A non-repeatable request (POST) is
    /// retried only when this is false: DNS, connect, proxy and TLS failures, and a connect
    /// timeout before the request was written. curl builds the request after the
    /// pre-request callback, so a request it refused to build (`CURLE_OUT_OF_MEMORY` with
    /// `CURLINFO_REQUEST_SIZE` still 0) sent nothing.
    func requestMayHaveBeenDelivered(failure code: CURLcode? = nil) -> Bool {
        if head.sawResponse { return true }
        guard requestStarting else { return false }
        if code == CURLE_OUT_OF_MEMORY, let easy {
            var sent = 0
            if rt_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &sent) == CURLE_OK, sent == 0 { return false }
        }
        return true
    }

    /// The current request's port, the scheme's default when the URL has none.
    var hopPort: Int { hop.url.port ?? (hop.url.scheme?.lowercased() == "https" ? 443 : 80) }

    /// The error for a failed transfer, with what the handle knows about it.
    func curlError(_ code: CURLcode, stage: CurlErrorMapping.Stage) -> RealtimeError {
        var f = CurlErrorMapping.Failure(code: code, stage: stage, host: hop.url.host ?? "", port: hopPort)
        f.proxy = proxyEndpoint
        f.proxyStatus = proxyConnectStatus()
        if let easy {
            var value = 0
            if rt_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &value) == CURLE_OK { f.osErrno = Int32(truncatingIfNeeded: value) }
            if rt_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &value) == CURLE_OK { f.verifyResult = value }
        }
        f.message = URLRedaction.redacted(String(cString: errorBuffer))
        return CurlErrorMapping.error(for: f)
    }

    /// The error for a final status that opens no stream, with its body excerpt. Reported even
    /// if the body was cut: the status is what matters.
    static func statusError(_ status: Int, retryAfter: Duration?, excerpt: [UInt8]) -> RealtimeError {
        let text = RealtimeError.excerpt(bytes: excerpt)
        // Only a proxy answers 407 (RFC 9110 §15.5.8): plain `http` through a proxy.
        if status == 407 { return RealtimeError(.proxy, detail: "proxy authentication required", status: status, bodyExcerpt: text) }
        return RealtimeError.httpStatus(status, bodyExcerpt: text, retryAfter: retryAfter)
    }

    /// The single exit: frees everything, then yields `ended` and finishes the channel.
    func finish(_ end: TransportEnd) {
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
        cancelTimers()
        events.send(.ended(end))
        events.finish()
    }
}

@available(*, unavailable)
extension SSEConnection: Sendable {}
#endif
