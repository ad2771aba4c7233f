#if os(Linux)
import CCurl
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The thin driver of one SSE attempt: feeds libcurl's callbacks to an
/// ``SSEAttemptStateMachine`` and carries out what it decides, on the easy handle, the
/// loop's timers and the event channel. The bytes of an open stream go from curl's write
/// callback straight into ``SSEParser``, its events into ``SSEEventBatcher``.
///
/// The seam: the connection takes its scheduler (`Loop`: the time, timers) and its curl
/// transfer (`Curl`) from outside. Production passes the epoll ``EventLoop`` and
/// ``CurlEasyTransfer``; tests pass a manual scheduler and a scripted transfer, and call the
/// ``SSECurlCallbacks`` themselves, with no handle and no socket.
///
/// The jobs live in their own files: the curl callbacks and the response head (`+Callbacks`),
/// the timers (`+Timers`) and the event batch (``SSEEventBatcher``). This file holds the life
/// cycle: start, pause and resume, completion, and the single exit ``perform(_:)``.
///
/// **Thread rule:** created and used on the loop thread only (`SSETransport` reaches it
/// through a `LoopBound`). Curl calls ``received(_:_:)`` and ``headerLine(_:_:)`` from
/// inside `curl_multi_socket_action`, so those never remove the easy handle themselves: they
/// return 0 to make curl abort, and the completion tears down.
final class SSEConnection<Loop: LoopScheduler, Curl: SSECurl>: SSECurlCallbacks {
    typealias Machine = SSEAttemptStateMachine<Loop.Instant>

    /// What only ``start()`` needs (the request's validation, the proxy), dropped once it ran:
    /// an idle connection keeps neither copy.
    private var setup: Setup?
    /// The attempt number, for `opened`.
    let attempt: Int
    let loop: Loop
    /// Where the attempt's events go (the owner's sink).
    var events = TransportOutlet()
    let curl: Curl

    var machine: Machine
    var parser: SSEParser
    /// One handle per armed timer; the machine's `deadlines` say which should exist.
    var timers = LoopTimers<Machine.Timer>()
    /// Events parsed during the current curl action, handed to the channel together when
    /// curl returns.
    var batcher: SSEEventBatcher

    init(request: TransportRequest, options: SSEOptions, loop: Loop, sink: any TransportSink, curl: Curl) {
        self.setup = Setup(request: request, proxy: options.proxy)
        self.attempt = request.attempt
        self.loop = loop
        self.curl = curl
        self.parser = SSEParser(limits: options.limits, lastEventID: request.lastEventID ?? "", strictUTF8: options.strictUTF8,
            reportsComments: options.reportsComments)
        self.machine = Machine(hop: SSEHop(request: request), configuration: Machine.Configuration(
            connectTimeout: request.connectTimeout, responseTimeout: request.responseTimeout, idleTimeout: request.idleTimeout, maxRedirects: request.maxRedirects,
            jsonBodyLimit: options.jsonBodyLimit, decodableContentCodings: CurlGlobal.contentEncodings))
        self.batcher = SSEEventBatcher(
            channelCapacity: request.eventBufferCapacity, cursor: curl.arenaCursor, packs: request.prefersMessageBatches)
        curl.callbacks = self
        events.attach(sink)
    }

    var isFinished: Bool { machine.isFinished }

    // MARK: Lifecycle

    func start() {
        guard machine.isIdle, let setup else { return }
        self.setup = nil
        let environment = ProcessInfo.processInfo.environment
        let proxy = SSERequestValidation.proxyEndpoint(setup.proxy, url: setup.request.url, environment: environment)
        switch machine.start(now: loop.now, proxyEndpoint: proxy) {
        case .startTransfer(let hop, let connectDeadline):
            if let problem = SSERequestValidation.problem(in: setup.request, proxy: setup.proxy, environment: environment) {
                perform(machine.setupFailed(problem))
                return
            }
            if let problem = curl.begin(hop) {
                perform(machine.setupFailed(problem))
                return
            }
            arm(.connect, at: connectDeadline)
        }
    }

    /// User close or consumer cancellation.
    func cancel() {
        if let end = machine.closeRequested() { perform(end) }
    }

    /// The consumer drained the channel: read again.
    func resume() {
        switch machine.consumerDemand(now: loop.now) {
        case .none:
            break
        case .resumeTransfer:
            // May deliver the held chunk synchronously through received(_:_:).
            curl.unpause()
            flush()
            if !isFinished { curl.kick() }
        }
    }

    /// Hands pending events to the channel; a full channel pauses the transfer at the next
    /// chunk curl offers.
    func flush() {
        guard !isFinished else { return }
        deliverPending()
    }

    private func deliverPending() {
        batcher.endBatch()
        guard !batcher.pending.isEmpty else { return }
        // One lock and at most one consumer wake-up for the whole batch.
        if !events.send(draining: &batcher.pending) { machine.deliveryRefused() }
    }

    /// Transfer over (curl finished it by itself, or a callback aborted it).
    func completed(_ code: CURLcode) {
        switch machine.transferCompleted(curl.result(of: code)) {
        case .none:
            break
        case .follow(let next):
            if let problem = curl.redirect(to: next) { perform(machine.setupFailed(problem)) }
        case .endOfStream(let end):
            // WHATWG §9.2.6: an event not terminated by a blank line is discarded.
            parser.finish()
            perform(end)
        case .deliverJSON(let text, let end):
            _ = events.send(.message(Message(content: .text(text))))
            perform(end)
        case .end(let end):
            perform(end)
        }
    }

    /// The single exit, once the machine ended: frees everything, then yields `ended` and
    /// finishes the channel.
    func perform(_ end: TransportEnd) {
        assert(machine.isFinished && machine.deadlines.armed.isEmpty, "an end leaves no timer armed")
        // Complete events parsed before the end are delivered, then `ended`.
        deliverPending()
        curl.end()
        timers.cancelAll(on: loop)
        events.send(.ended(end))
        events.finish()
    }
}

@available(*, unavailable)
extension SSEConnection: Sendable {}
/// The part of an attempt's input that only its start reads.
private final class Setup {
    let request: TransportRequest
    let proxy: ProxyConfiguration

    init(request: TransportRequest, proxy: ProxyConfiguration) {
        self.request = request
        self.proxy = proxy
    }
}
#endif
