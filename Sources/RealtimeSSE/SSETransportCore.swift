#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// The body of `SSETransport`, generic over the seam: the scheduler its connection runs on
/// and the curl transfer it drives. `SSETransport` is this on the epoll loop with
/// ``CurlEasyTransfer``; tests run it on a manual scheduler with a scripted transfer.
///
/// The events of an attempt go from the connection straight to the sink given to
/// ``start(delivering:)``; this object only starts, resumes, probes and ends the connection.
///
/// Thread-safe: every method may be called from any thread; the connection lives on `loop`.
package final class SSETransportCore<Loop: LoopScheduler, Curl: SSECurl>: Transport {
    typealias Connection = SSEConnection<Loop, Curl>
    package var kind: TransportKind { .sse }
    package let request: TransportRequest
    package let options: SSEOptions
    package let loop: Loop
    private let lifecycle = LockedValue(Lifecycle.idle)
    /// Makes the attempt's transfer from the request, the options and the loop; called once,
    /// on the loop thread, at the start (a function of its arguments, so it captures nothing:
    /// no closure context per transport).
    private let makeCurl: @Sendable (TransportRequest, SSEOptions, Loop) -> Curl
    /// The live attempt; created and used on the loop thread only.
    let connection: LoopBound<Connection?, Loop>

    private enum Lifecycle {
        case idle, started
        /// Closed before it started: `start` delivers the `ended` at once.
        case closedEarly
        case closed
    }

    /// Prepares an attempt on `loop` whose transfer `makeCurl` creates; nothing happens
    /// before ``start(delivering:)``.
    package init(request: TransportRequest, options: SSEOptions, loop: Loop,
        makeCurl: @escaping @Sendable (TransportRequest, SSEOptions, Loop) -> Curl
    ) {
        self.request = request
        self.options = options
        self.loop = loop
        self.makeCurl = makeCurl
        self.connection = LoopBound(nil, loop: loop)
    }

    deinit {
        // A transport dropped without close() must not leave a transfer running.
        let box = connection
        loop.execute { box.value?.cancel() }
    }

    package func start(delivering sink: any TransportSink) {
        let begin: Lifecycle = lifecycle.withLock { state in
            let was = state
            switch state {
            case .idle: state = .started
            case .closedEarly: state = .closed
            case .started, .closed: break
            }
            return was
        }
        switch begin {
        case .idle: break
        case .closedEarly:
            var end: [TransportEvent] = [.ended(TransportEnd(clean: false, error: .cancelled, requestWasDelivered: false))]
            _ = sink.deliver(&end)
            return
        case .started, .closed: return
        }
        let box = connection
        let request = self.request, options = self.options, loop = self.loop, makeCurl = self.makeCurl
        loop.execute {
            let c = Connection(request: request, options: options, loop: loop, sink: sink, curl: makeCurl(request, options, loop))
            box.value = c
            c.start()
        }
    }

    /// See `SSETransport.resumeDelivery()`.
    package func resumeDelivery() {
        let box = connection
        loop.execute { box.value?.resume() }
    }

    /// See `SSETransport.send(_:)`.
    package func send(_ message: OutboundMessage) async throws {
        throw RealtimeError(.sendNotSupported, detail: "SSE is receive-only")
    }

    /// See `SSETransport.verifyConnection(within:)`.
    package func verifyConnection(within timeout: Duration) {
        let box = connection
        loop.execute { box.value?.verify(within: timeout) }
    }

    /// See `SSETransport.close(code:reason:)`.
    package func close(code: UInt16, reason: String) {
        let wasIdle: Bool = lifecycle.withLock { state in
            switch state {
            case .idle:
                state = .closedEarly
                return true
            case .started:
                state = .closed
                return false
            case .closedEarly, .closed:
                return false
            }
        }
        if wasIdle { return }
        let box = connection
        loop.execute { box.value?.cancel() }
    }
}
#endif
