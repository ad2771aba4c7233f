#if os(Linux)
@_spi(Transport) import RealtimeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The decisions of one SSE attempt, without I/O: what libcurl reports goes in (with the time
/// it happened), what to do comes out, for ``SSEConnection`` to carry out on the easy handle,
/// the loop's timers and the event channel.
///
/// Phases: `idle` → `connecting` (DNS, connect, TLS, the request, 1xx, followed redirects) →
/// the final response head picks one of `open` (200 + `text/event-stream`: the body goes to
/// the parser), `noContent` (204, or 202 with a JSON body limit), `errorBody` (another status,
/// or a 200 of another media type: a bounded excerpt of the body is kept for the error) and
/// `jsonBody` (200 + JSON with a JSON body limit) → `finished`.
///
/// Rules the machine keeps, whatever the order of events:
/// - exactly one end: every path returns one `TransportEnd`, and after it every event is
///   ignored (a late timer, a chunk curl still had, a second close);
/// - the connect timer bounds the whole chain up to the final response head, redirects
///   included; the idle timer starts at that head and counts any byte (body, header or trailer
///   line), and a path-change probe only needs the first byte after it;
/// - an error body has `RealtimeError.bodyExcerptWait` in all (within the idle timeout): a
///   body that stalls or trickles still ends with its status and the excerpt so far;
/// - silence while the consumer is behind (the transfer is paused, or will be at the next
///   chunk) is never the server's: neither the idle timeout nor the probe counts it, and on
///   resuming the idle period starts over.
///
/// Timers are deadlines computed from the `now` passed in; ``deadlines`` lists the armed ones,
/// and the end disarms them all. Impossible calls (`start` twice, a response head after the
/// final one, an event before `start`) are `preconditionFailure`s: they are driver bugs, not
/// network events.
package struct SSEAttemptStateMachine<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The timers an attempt runs; the driver keeps one handle per kind.
    package enum Timer: Int, Hashable, CaseIterable, Sendable {
        /// Up to the final response head.
        case connect
        /// No byte for ``Configuration/idleTimeout``; fires at the earliest possible deadline,
        /// re-checks and re-arms (a timer per chunk would cost a heap operation per read).
        case idle
        /// A path-change verification (``verifyRequested(within:now:)``).
        case probe
    }

    /// What the machine needs from the request and the transport's options.
    package struct Configuration: Sendable {
        package var connectTimeout: Duration
        /// From the request's first byte to the final response head; nil: the connect
        /// timeout covers the head too.
        package var responseTimeout: Duration?
        package var idleTimeout: Duration?
        package var maxRedirects: Int
        /// ``SSEOptions/jsonBodyLimit``: with it, a JSON 200 is one message and a
        /// 202 an orderly end.
        package var jsonBodyLimit: Int?
        /// The content codings the installed libcurl decodes.
        package var decodableContentCodings: [String]

        package init(
            connectTimeout: Duration = .seconds(10), responseTimeout: Duration? = nil, idleTimeout: Duration? = nil,
            maxRedirects: Int = 10, jsonBodyLimit: Int? = nil, decodableContentCodings: [String] = []
        ) {
            self.connectTimeout = connectTimeout
            self.responseTimeout = responseTimeout
            self.idleTimeout = idleTimeout
            self.maxRedirects = maxRedirects
            self.jsonBodyLimit = jsonBodyLimit
            self.decodableContentCodings = decodableContentCodings
        }
    }

    package enum Phase: Sendable, Equatable {
        case idle
        /// Before the final response head: DNS, connect, TLS, request, 1xx, redirects.
        case connecting
        /// 200 + `text/event-stream`: the body goes to the parser.
        case open
        /// 204 (or 202 with a JSON body limit): the server asked not to reconnect.
        case noContent
        /// Any other final status, or a 200 that is not `text/event-stream` (`mediaType`
        /// set): a bounded excerpt of the body for the error (an API's JSON error text).
        case errorBody(status: Int, retryAfter: Duration?, mediaType: String?, excerpt: [UInt8])
        /// 200 + JSON with a JSON body limit: the whole body becomes one message at its end.
        case jsonBody([UInt8])
        case finished
    }

    /// Deadlines of the armed timers (nil: not armed).
    package struct Deadlines: Sendable, Equatable {
        package var connect, idle, probe: Instant?

        package subscript(timer: Timer) -> Instant? {
            get {
                switch timer {
                case .connect: return connect
                case .idle: return idle
                case .probe: return probe
                }
            }
            set {
                switch timer {
                case .connect: connect = newValue
                case .idle: idle = newValue
                case .probe: probe = newValue
                }
            }
        }

        /// The armed timers.
        package var armed: [Timer] { Timer.allCases.filter { self[$0] != nil } }
    }

    package typealias TransferResult = SSETransferResult

    /// A redirect's body is read (so its connection can be reused) up to this many bytes,
    /// then cut: it may be endless, and nobody reads it.
    package static var redirectBodyLimit: Int { 64 * 1024 }

    package let configuration: Configuration
    package private(set) var phase = Phase.idle
    /// `host:port` of the proxy the transfer goes through, nil when direct (for messages).
    package private(set) var proxyEndpoint: String?
    /// The request being sent: the attempt's own, then each followed redirect's.
    package private(set) var hop: SSEHop
    /// Redirects followed so far.
    package private(set) var redirects = 0
    /// The request a redirect asked for, sent once that redirect's transfer completes.
    package private(set) var nextHop: SSEHop?
    /// Body bytes of the redirect response being followed, discarded.
    package private(set) var redirectBodyBytes = 0
    /// Set when the machine (or the parser) aborts the transfer, reported instead of curl's
    /// `CURLE_WRITE_ERROR`.
    package private(set) var abortReason: RealtimeError?
    /// The response head being read, line by line.
    package private(set) var head = SSEResponseHead()
    /// Connected (TLS included) and about to build and send the request: from then on a byte
    /// of the request may reach the server.
    package private(set) var requestStarting = false
    /// When the last byte came, or the consumer caught up (liveness for idle and probe).
    package private(set) var lastByte: Instant?
    /// The channel is full: pause at the next chunk curl offers.
    package private(set) var pauseRequested = false
    /// The transfer is paused (the write callback returned `CURL_WRITEFUNC_PAUSE`).
    package private(set) var paused = false
    /// The pending path-change verification: when it began and its bound.
    package var pendingProbe: (since: Instant, timeout: Duration)?
    /// Armed timers and their deadlines.
    package var deadlines = Deadlines()

    package init(hop: SSEHop, configuration: Configuration) {
        self.hop = hop
        self.configuration = configuration
    }

    // MARK: - Queries

    package var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    var isReadingErrorBody: Bool {
        if case .errorBody = phase { return true }
        return false
    }

    package var isIdle: Bool {
        if case .idle = phase { return true }
        return false
    }

    /// The channel is full: the transfer is paused, or will be at the next chunk. Silence
    /// then does not count against the server (idle timeout, path-change probe).
    package var waitsForConsumer: Bool { paused || pauseRequested }

    /// The current request's port, the scheme's default when the URL has none.
    package var hopPort: Int { hop.url.port ?? (hop.url.scheme?.lowercased() == "https" ? 443 : 80) }

    /// Whether any byte of the request may have reached the server: a response was seen, or
    /// curl got as far as sending it. A non-repeatable request (POST) is retried only when
    /// this is false.
    package func requestMayHaveBeenDelivered(nothingSent: Bool = false) -> Bool {
        if head.sawResponse { return true }
        guard requestStarting else { return false }
        return !nothingSent
    }

    // MARK: - Starting

    package enum StartAction: Sendable, Hashable {
        /// Create the easy handle for `hop`, attach it, and arm the connect timer.
        case startTransfer(SSEHop, connectDeadline: Instant)
    }

    /// Begins the attempt at `now`, through the proxy at `proxyEndpoint` (nil: direct).
    package mutating func start(now: Instant, proxyEndpoint: String? = nil) -> StartAction {
        guard case .idle = phase else { preconditionFailure("SSEAttemptStateMachine started twice") }
        phase = .connecting
        self.proxyEndpoint = proxyEndpoint
        lastByte = now
        return .startTransfer(hop, connectDeadline: arm(.connect, at: now.advanced(by: configuration.connectTimeout)))
    }

    /// The request was refused before any I/O (validation), or curl refused the handle or an
    /// option (at the start or for a redirect): the attempt ends with `error`.
    package mutating func setupFailed(_ error: RealtimeError) -> TransportEnd {
        guard case .connecting = phase else { preconditionFailure("SSEAttemptStateMachine: a setup failure outside the connecting phase") }
        return finish(TransportEnd(clean: false, error: error, requestWasDelivered: requestMayHaveBeenDelivered()))
    }

    /// curl's pre-request callback at `now`: connected, and about to write the request (for
    /// every hop of a redirect chain). With a ``Configuration/responseTimeout`` the connect
    /// timer is re-armed for the returned deadline: the server has that long to answer.
    package mutating func requestStarted(now: Instant) -> Instant? {
        guard !isFinished else { return nil }
        requestStarting = true
        guard case .connecting = phase, let limit = configuration.responseTimeout else { return nil }
        return arm(.connect, at: now.advanced(by: limit))
    }

    // MARK: - The response head

    /// One raw header line (status line, field, blank line; trailers too). True when it ended
    /// a response head: the driver then reads the status from curl and calls
    /// ``responseHeadEnded(status:now:date:)``.
    package mutating func headerLineReceived(_ line: UnsafeRawBufferPointer?, now: Instant) -> Bool {
        guard !isFinished else { return false }
        precondition(!isIdle, "SSEAttemptStateMachine: a header line before start")
        lastByte = now
        guard case .connecting = phase, let line else { return false }
        guard case .end = head.consume(line) else { return false }
        return true
    }

    package enum HeadAction: Sendable, Hashable {
        /// A 1xx, or a redirect to follow once this response's transfer completes: read on.
        case proceed
        /// The final head: cancel the connect timer, arm the idle timer at `idleDeadline`
        /// (nil: no idle timeout), report `opened` with ``head``'s fields when
        /// `reportsOpened`, and read on.
        case final(reportsOpened: Bool, idleDeadline: Instant?)
        /// Abort the transfer (the header callback returns 0); its completion reports
        /// ``abortReason``.
        case abort
    }

    /// A complete response head with `status` arrived. `date` is the wall-clock time, for a
    /// `Retry-After` given as an HTTP-date (read only for an error status).
    package mutating func responseHeadEnded(status: Int, now: Instant, date: @autoclosure () -> Date) -> HeadAction {
        guard case .connecting = phase else { preconditionFailure("SSEAttemptStateMachine: a response head after the final one") }
        if (100..<200).contains(status) { return .proceed }
        if SSEHop.isRedirect(status) { return redirectRequested(status: status) ? .proceed : .abort }
        deadlines.connect = nil
        var opened = false
        switch status {
        case 200 where configuration.jsonBodyLimit != nil && !head.isEventStream && head.isJSON:
            phase = .jsonBody([])
            opened = true
        case 202 where configuration.jsonBodyLimit != nil:
            phase = .noContent
        case 200:
            guard head.isEventStream else {
                // Kept like an error status's body: an API that answers JSON says why in it.
                phase = .errorBody(status: status, retryAfter: nil, mediaType: head.mediaType, excerpt: [])
                break
            }
            if let coding = head.undecodableContentCoding(decodable: configuration.decodableContentCodings) {
                abortReason = RealtimeError(
                    .invalidContentEncoding, detail: "Content-Encoding \(coding) cannot be decoded", status: status)
                return .abort
            }
            phase = .open
            opened = true
        case 204:
            phase = .noContent
        default:
            let retryAfter = head.headers["Retry-After"].flatMap { RetryAfter.parse($0, now: date()) }
            phase = .errorBody(status: status, retryAfter: retryAfter, mediaType: nil, excerpt: [])
        }
        var wait = configuration.idleTimeout
        // An error body has `RealtimeError.bodyExcerptWait` in all, within the idle timeout.
        if isReadingErrorBody { wait = min(wait ?? RealtimeError.bodyExcerptWait, RealtimeError.bodyExcerptWait) }
        let idle = wait.map { arm(.idle, at: now.advanced(by: $0)) }
        return .final(reportsOpened: opened, idleDeadline: idle)
    }

    /// Notes the request a `status` redirect asks for, or sets ``abortReason`` and returns
    /// false for an unusable `Location` or one redirect too many.
    private mutating func redirectRequested(status: Int) -> Bool {
        do {
            let next = try hop.following(status: status, location: head.headers["Location"])
            guard redirects < configuration.maxRedirects else {
                abortReason = RealtimeError(.redirect, detail: "more than \(configuration.maxRedirects) redirects", status: status)
                return false
            }
            nextHop = next
            return true
        } catch {
            abortReason = error
            return false
        }
    }

    // MARK: - The body

    package enum BodyAction: Sendable, Hashable {
        /// Feed the chunk to the parser (then take it).
        case parse
        /// Take the chunk (return its count to curl).
        case consume
        /// Pause the transfer: curl holds this chunk until ``consumerDemand(now:)`` resumes it.
        case pause
        /// Stop the transfer (return 0): the excerpt is complete, the redirect's body too
        /// long, or ``abortReason`` says why.
        case stop
    }

    /// `count` body bytes at `bytes` (decoded, if the response had a `Content-Encoding`).
    package mutating func bodyReceived(_ bytes: UnsafeRawPointer?, count: Int, now: Instant) -> BodyAction {
        switch phase {
        case .open:
            lastByte = now
            if pauseRequested {
                pauseRequested = false
                paused = true
                return .pause
            }
            return bytes != nil && count > 0 ? .parse : .consume
        case .errorBody(let status, let retryAfter, let mediaType, var excerpt):
            lastByte = now
            guard let bytes else { return .consume }
            let room = RealtimeError.maxBodyExcerpt - excerpt.count
            excerpt.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: min(room, count)))
            phase = .errorBody(status: status, retryAfter: retryAfter, mediaType: mediaType, excerpt: excerpt)
            // Enough for the error: stop downloading (the body may be endless).
            return excerpt.count >= RealtimeError.maxBodyExcerpt ? .stop : .consume
        case .jsonBody(var body):
            lastByte = now
            guard let bytes else { return .consume }
            let limit = configuration.jsonBodyLimit ?? 0
            guard body.count + count <= limit else {
                abortReason = RealtimeError(.messageTooLarge, detail: "JSON body over \(limit) bytes")
                return .stop
            }
            phase = .finished  // drops the array's second reference while it grows
            body.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: count))
            phase = .jsonBody(body)
            return .consume
        case .connecting:
            // A redirect's body (1xx have none): discarded, and cut past the limit (its
            // completion then follows the redirect).
            lastByte = now
            redirectBodyBytes += count
            return redirectBodyBytes <= Self.redirectBodyLimit ? .consume : .stop
        case .noContent:
            // The body of a 204, if a server sends one anyway.
            lastByte = now
            return .consume
        case .finished:
            // A chunk curl still delivers after the end (from inside a resume): dropped.
            return .consume
        case .idle:
            preconditionFailure("SSEAttemptStateMachine: a body chunk before start")
        }
    }

    /// The parser refused the stream (a limit, strict UTF-8): the transfer is aborted with
    /// `error`.
    package mutating func parserFailed(_ error: RealtimeError) {
        guard !isFinished else { return }
        abortReason = error
    }

    // MARK: - Back-pressure

    /// The channel did not take everything (it is full): pause at the next chunk curl offers.
    package mutating func deliveryRefused() {
        guard !isFinished else { return }
        pauseRequested = true
    }

    package enum DemandAction: Sendable, Hashable {
        case none
        /// Unpause the transfer (curl may deliver the held chunk at once), hand over what
        /// that parsed, and let curl make progress.
        case resumeTransfer
    }

    /// The consumer drained the channel. The silence while it was behind was its own, not
    /// the server's: the idle period starts over at `now`.
    package mutating func consumerDemand(now: Instant) -> DemandAction {
        guard !isFinished else { return .none }
        if waitsForConsumer { lastByte = now }
        pauseRequested = false
        guard paused else { return .none }
        paused = false
        return .resumeTransfer
    }

    // MARK: - Completion

    package enum CompletionAction: Sendable, Hashable {
        /// The attempt had already ended.
        case none
        /// Send `hop` on the same easy handle (the connect timer keeps running).
        case follow(SSEHop)
        /// The server ended the stream: the parser drops an unterminated event (WHATWG
        /// §9.2.6), then the end.
        case endOfStream(TransportEnd)
        /// Deliver the JSON body as one text message, then the end.
        case deliverJSON(String, then: TransportEnd)
        case end(TransportEnd)
    }

    /// The transfer is over: curl finished it by itself, or a callback stopped it.
    package mutating func transferCompleted(_ result: TransferResult) -> CompletionAction {
        guard !isFinished else { return .none }
        precondition(!isIdle, "SSEAttemptStateMachine: a completion before start")
        if let next = nextHop {
            // Whatever ended the redirect's body (its end, our cut, a reset), its head said
            // where to go.
            nextHop = nil
            hop = next
            redirects += 1
            redirectBodyBytes = 0
            return .follow(next)
        }
        let delivered = requestMayHaveBeenDelivered(nothingSent: result.nothingSent)
        if let abortReason {
            return .end(finish(TransportEnd(clean: false, error: abortReason, requestWasDelivered: delivered)))
        }
        let failure = result.failure
        switch phase {
        case .open:
            guard let failure else { return .endOfStream(finish(TransportEnd(clean: true))) }
            return .end(finish(TransportEnd(clean: false, error: curlError(failure, stage: .open))))
        case .noContent:
            return .end(finish(TransportEnd(clean: true, doNotReconnect: true)))
        case .jsonBody(let body):
            if let failure { return .end(finish(TransportEnd(clean: false, error: curlError(failure, stage: .open)))) }
            // A body that is not UTF-8 cannot be JSON (RFC 8259 §8.1).
            guard let text = String(validating: body, as: UTF8.self) else {
                return .end(finish(TransportEnd(clean: false, error: RealtimeError(.invalidUTF8, detail: "JSON body is not UTF-8"))))
            }
            return .deliverJSON(text, then: finish(TransportEnd(clean: true, doNotReconnect: true)))
        case .errorBody(let status, let retryAfter, let mediaType, let excerpt):
            let error = Self.errorBodyError(status, retryAfter: retryAfter, mediaType: mediaType, excerpt: excerpt)
            return .end(finish(TransportEnd(clean: false, error: error)))
        case .connecting:
            let error = failure.map { curlError($0, stage: delivered ? .requestSent : .beforeRequest) }
                ?? RealtimeError(.protocolViolation, detail: "response ended before its head")
            return .end(finish(TransportEnd(clean: false, error: error, requestWasDelivered: delivered)))
        case .idle, .finished:
            preconditionFailure("unreachable: guarded above")
        }
    }

    /// The error for a failed transfer at `stage`, naming the current request's host and port
    /// and the proxy.
    private func curlError(_ failure: CurlErrorMapping.Failure, stage: CurlErrorMapping.Stage) -> RealtimeError {
        var f = failure
        f.stage = stage
        f.host = hop.url.host ?? ""
        f.port = hopPort
        f.proxy = proxyEndpoint
        return CurlErrorMapping.error(for: f)
    }

    /// The error an error body ends with, with the excerpt read so far (`mediaType`: a 200
    /// that is not an event stream). A cut, a stall or an endless body reports the same
    /// error: the status is what matters.
    static func errorBodyError(_ status: Int, retryAfter: Duration?, mediaType: String?, excerpt: [UInt8]) -> RealtimeError {
        guard let mediaType else { return Self.statusError(status, retryAfter: retryAfter, excerpt: excerpt) }
        return RealtimeError(.invalidContentType, detail: "Content-Type \(mediaType)", status: status, bodyExcerpt: RealtimeError.excerpt(bytes: excerpt))
    }

    /// The error for a final status that opens no stream, with its body excerpt. Reported even
    /// if the body was cut: the status is what matters.
    package static func statusError(_ status: Int, retryAfter: Duration?, excerpt: [UInt8]) -> RealtimeError {
        let text = RealtimeError.excerpt(bytes: excerpt)
        // Only a proxy answers 407 (RFC 9110 §15.5.8): plain `http` through a proxy.
        if status == 407 { return RealtimeError(.proxy, detail: "proxy authentication required", status: status, bodyExcerpt: text) }
        return RealtimeError.httpStatus(status, bodyExcerpt: text, retryAfter: retryAfter)
    }

    // MARK: - Closing

    /// User close, consumer cancellation or abort: the end, or nil when the attempt already
    /// ended.
    package mutating func closeRequested() -> TransportEnd? {
        guard !isFinished else { return nil }
        return finish(TransportEnd(clean: false, error: .cancelled, requestWasDelivered: requestMayHaveBeenDelivered()))
    }

    /// Ends the attempt: every timer is disarmed (``deadlines`` is empty afterwards).
    package mutating func finish(_ end: TransportEnd) -> TransportEnd {
        precondition(!isFinished, "SSEAttemptStateMachine ended twice")
        phase = .finished
        deadlines = Deadlines()
        pendingProbe = nil
        nextHop = nil
        pauseRequested = false
        paused = false
        return end
    }

    package mutating func arm(_ timer: Timer, at deadline: Instant) -> Instant {
        deadlines[timer] = deadline
        return deadline
    }
}

/// How the transfer ended, as the driver read it from the handle.
package struct SSETransferResult: Sendable, Hashable {
    /// nil when curl finished the transfer by itself (`CURLE_OK`); else what the handle
    /// knew (the machine fills in the stage, host, port and proxy).
    package var failure: CurlErrorMapping.Failure?
    /// curl failed before it wrote a byte of the request although the pre-request
    /// callback ran (out of memory with `CURLINFO_REQUEST_SIZE` still 0).
    package var nothingSent = false

    package init(failure: CurlErrorMapping.Failure? = nil, nothingSent: Bool = false) {
        self.failure = failure
        self.nothingSent = nothingSent
    }
}
#endif
