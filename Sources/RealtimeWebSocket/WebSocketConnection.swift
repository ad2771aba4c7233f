#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore
import RealtimeIO

/// The loop-confined half of a ``WebSocketTransport``: socket, handshake, codec, timers.
///
/// Every method runs on `eventLoop`'s thread (the transport hops there with `execute`), so
/// the state needs no lock; that rule is why the class is `@unchecked Sendable`.
final class WebSocketConnection: ByteStreamDelegate, @unchecked Sendable {
    enum State {
        case idle
        /// DNS, TCP, TLS, then the opening handshake.
        case connecting
        /// A non-101 answer: gathering a short body excerpt for the error.
        case readingErrorBody(status: Int, body: [UInt8], wanted: Int)
        case open
        /// We sent a close frame (or are failing the connection) and wait for the server's
        /// close frame and its TCP close.
        case closing(receivedClose: Bool)
        case closed
    }

    let request: TransportRequest
    let options: WebSocketTransport.Options
    let eventLoop: EventLoop
    let events: BoundedChannel<TransportEvent>
    weak var transport: WebSocketTransport?

    var state = State.idle
    var stream: SocketByteStream?
    /// The URL of the current handshake (changes on redirects).
    var url: URL
    var redirects = 0
    /// A redirect left the first origin: credential headers are no longer sent (they stay
    /// dropped even if a later redirect comes back).
    var credentialsDropped = false
    var handshake: WebSocketHandshake?

    var decoder: WebSocketFrameDecoder
    var assembler: WebSocketMessageAssembler
    var encoder = WebSocketFrameEncoder(role: .client, generator: BufferedSystemRandom())
    /// permessage-deflate, once negotiated (RFC 7692). No deflater when the agreed client
    /// window is 8 bits (zlib cannot honour it): messages are then sent uncompressed.
    var inflater: WebSocketInflater?
    var deflater: WebSocketDeflater?
    var heartbeat: HeartbeatStateMachine<ContinuousClock.Instant>
    let clock = ContinuousClock()
    var lastRead: ContinuousClock.Instant
    var readsPausedForConsumer = false
    /// Messages decoded from the current read, handed to the channel together (one lock and at
    /// most one consumer wake-up per read, not per message); see `deliverPending()`.
    var pendingMessages: [TransportEvent] = []
    /// Hand over early at this many pending messages, so a large read overshoots the
    /// channel's capacity by at most this much.
    let deliveryBatch: Int
    /// Received bytes not yet decoded because the consumer's buffer filled up.
    var stashedInput: [UInt8] = []

    var connectTimer: TimerHandle?
    var heartbeatTimer: TimerHandle?
    var idleTimer: TimerHandle?
    var closeTimer: TimerHandle?
    /// Armed by ``verify(within:)`` after a network path change.
    var probeTimer: TimerHandle?

    /// Messages from `send` accepted before the handshake finished.
    var sendsBeforeOpen: [(OutboundMessage, CheckedContinuation<Void, any Error>)] = []
    /// How the attempt ends once the closing handshake is over.
    var pendingEnd: TransportEnd?
    /// True once we are failing the connection (RFC 6455 §7.1.7): input is ignored.
    var failing = false
    var openedInfo: ConnectionInfo?
    /// The non-101 response being reported.
    var refusedHead: HTTPResponseHead?

    init(request: TransportRequest, options: WebSocketTransport.Options, eventLoop: EventLoop, events: BoundedChannel<TransportEvent>) {
        self.request = request
        self.options = options
        self.eventLoop = eventLoop
        self.events = events
        self.url = request.url
        self.decoder = WebSocketFrameDecoder(role: .client, maxFrameSize: options.maxFrameSize)
        self.assembler = WebSocketMessageAssembler(maxMessageSize: options.maxMessageSize)
        self.heartbeat = HeartbeatStateMachine(policy: options.heartbeat)
        self.lastRead = ContinuousClock.now
        self.deliveryBatch = max(1, min(64, request.eventBufferCapacity / 2))
    }

    deinit {
        // The transport was dropped without `close()`: the socket goes with us (the stream
        // releases it on the loop), and a consumer still iterating must not wait forever.
        if case .closed = state { return }
        events.send(draining: &pendingMessages)
        events.send(.ended(TransportEnd(clean: false, error: .cancelled)))
        events.finish()
    }

    // MARK: - Starting

    func start() {
        guard case .idle = state else { return }
        state = .connecting
        connectTimer = eventLoop.schedule(after: request.connectTimeout) { [weak self] in
            guard let self else { return }
            self.connectTimer = nil
            guard case .connecting = self.state else {
                if case .readingErrorBody = self.state { self.finishErrorBody() }
                return
            }
            self.end(TransportEnd(
                clean: false,
                error: RealtimeError(.connectTimeout, detail: "no WebSocket handshake within \(self.request.connectTimeout)"),
                requestWasDelivered: false))
        }
        connect()
    }

    /// Opens the socket for `url` (the first attempt, or after a redirect).
    func connect() {
        let target: WebSocketTarget
        let handshake: WebSocketHandshake
        let proxy: HTTPProxy?
        do {
            target = try WebSocketTarget(url: url)
            proxy = try target.proxy(for: options.proxy, environment: ProcessInfo.processInfo.environment)
            var generator = SystemRandomNumberGenerator()
            handshake = try WebSocketHandshake(
                url: url, subprotocols: request.subprotocols, deflate: options.compression.deflateOffer,
                headers: credentialsDropped ? request.headers.removingSensitive() : request.headers,
                generator: &generator)
        } catch {
            end(TransportEnd(clean: false, error: error, requestWasDelivered: false))
            return
        }
        var socketOptions = options.socket
        socketOptions.connectTimeout = nil // the attempt's own deadline covers everything
        let stream = SocketByteStream(eventLoop: eventLoop, readChunkSize: socketOptions.readChunkSize)
        stream.delegate = self
        self.stream = stream
        stream.connect(to: ByteStreamEndpoint(
            host: target.host, port: target.port, tls: target.secure ? request.tls : nil, options: socketOptions,
            proxy: proxy))
        self.handshake = handshake
        stream.write(handshake.request, completion: nil)
    }

    // MARK: - ByteStreamDelegate

    func byteStreamDidConnect(_ stream: any ByteStream) {}

    func byteStream(_ stream: any ByteStream, didRead bytes: UnsafeRawBufferPointer) {
        switch state {
        case .connecting:
            receiveHandshakeBytes(bytes)
        case .readingErrorBody(let status, var body, let wanted):
            body.append(contentsOf: bytes.prefix(wanted - body.count))
            state = .readingErrorBody(status: status, body: body, wanted: wanted)
            if body.count >= wanted { finishErrorBody() }
        case .open, .closing:
            receiveFrames(bytes)
        case .idle, .closed:
            break
        }
    }

    func byteStream(_ stream: any ByteStream, didCloseWith error: RealtimeError?) {
        self.stream = nil
        switch state {
        case .connecting:
            end(TransportEnd(
                clean: false,
                error: error ?? RealtimeError(.handshake, detail: "connection closed before the handshake response"),
                requestWasDelivered: false))
        case .readingErrorBody:
            finishErrorBody()
        case .open:
            // A TCP end without a close frame (RFC 6455 §7.1.5: code 1006, not clean).
            end(TransportEnd(
                clean: false,
                error: error ?? RealtimeError(.remoteClosed, detail: "connection closed without a close frame")))
        case .closing:
            end(pendingEnd ?? TransportEnd(clean: false, error: error))
        case .idle, .closed:
            break
        }
    }

    // MARK: - Ending

    /// Ends the attempt once: releases the socket and every timer, fails waiting senders,
    /// yields `ended` and finishes the event stream.
    func end(_ result: TransportEnd) {
        if case .closed = state { return }
        state = .closed
        for timer in [connectTimer, heartbeatTimer, idleTimer, closeTimer, probeTimer].compactMap({ $0 }) {
            eventLoop.cancel(timer)
        }
        probeTimer = nil
        connectTimer = nil
        heartbeatTimer = nil
        idleTimer = nil
        closeTimer = nil
        heartbeat.stop()
        if let stream {
            stream.delegate = nil
            stream.close()
            self.stream = nil
        }
        let notConnected = RealtimeError(.notConnected, detail: "connection closed")
        var rejected = sendsBeforeOpen.map(\.1)
        sendsBeforeOpen = []
        if let transport {
            rejected += transport.outbox.withLock { $0.stopAccepting() }
        }
        for continuation in rejected { continuation.resume(throwing: notConnected) }
        // Messages decoded before the end come before it.
        deliverPending()
        events.send(.ended(result))
        events.finish()
    }
}
