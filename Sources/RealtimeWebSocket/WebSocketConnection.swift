#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore
import RealtimeIO

/// The loop-confined half of a ``WebSocketTransport``: the thin driver of a
/// ``WebSocketConnectionStateMachine``. It owns the socket, the handshake codec, the receive
/// pipeline, the encoder and the timers, feeds the machine what happens, and performs the
/// actions it returns.
///
/// Threading: every method runs on `eventLoop`'s thread. The transport reaches the
/// connection only through a `LoopBoundBox` (which checks the thread on every access), and
/// callbacks that must be `@Sendable` hold ``reference`` (a weak reference in a
/// `LoopBoundBox`), so the class itself is not `Sendable`.
final class WebSocketConnection: ByteStreamDelegate {
    typealias Machine = WebSocketConnectionStateMachine<ContinuousClock.Instant>
    typealias Completion = @Sendable (RealtimeError?) -> Void

    let request: TransportRequest
    let options: WebSocketTransport.Options
    let eventLoop: EventLoop
    let events: BoundedChannel<TransportEvent>
    weak var transport: WebSocketTransport?

    var machine: Machine
    let clock = ContinuousClock()
    var stream: SocketByteStream?
    var handshake: WebSocketHandshake?
    /// decoder → inflater (once permessage-deflate is agreed) → assembler.
    var receiver: WebSocketReceiver<WebSocketInflater?>
    var encoder = WebSocketFrameEncoder(role: .client, generator: BufferedSystemRandom())
    /// permessage-deflate's sending half. None when the agreed client window is 8 bits (zlib
    /// cannot honour it): messages are then sent uncompressed (RFC 7692 §6).
    var deflater: WebSocketDeflater?
    /// One handle per armed timer; the machine's `deadlines` say which should exist.
    var timers: [Machine.Timer: TimerHandle] = [:]

    /// Messages decoded from the current read, handed to the channel together (one lock and at
    /// most one consumer wake-up per read, not per message); see `deliverPending()`.
    var pendingMessages: [TransportEvent] = []
    /// Hand over early at this many pending messages, so a large read overshoots the
    /// channel's capacity by at most this much.
    let deliveryBatch: Int
    /// Received bytes not yet decoded because the consumer's buffer filled up.
    var stashedInput: [UInt8] = []
    /// Messages from `send` accepted before the handshake finished.
    var sendsBeforeOpen: [OutboxEntry] = []
    /// Reused for encoding a batch of outbound frames.
    var batchBuffer: [UInt8] = []
    /// A refused handshake's response and the body excerpt gathered so far.
    var refusal: (head: HTTPResponseHead, body: [UInt8], wanted: Int)?

    init(request: TransportRequest, options: WebSocketTransport.Options, eventLoop: EventLoop, events: BoundedChannel<TransportEvent>) {
        self.request = request
        self.options = options
        self.eventLoop = eventLoop
        self.events = events
        self.machine = Machine(configuration: Machine.Configuration(
            url: request.url, connectTimeout: request.connectTimeout, idleTimeout: request.idleTimeout,
            closeTimeout: options.closeTimeout, maxRedirects: request.maxRedirects,
            allowsInsecureRedirects: request.allowsInsecureRedirects, heartbeat: options.heartbeat,
            maxOutboundBytes: options.maxOutboundBytes, writeTimeout: options.writeTimeout,
            tcpUserTimeout: options.socket.userTimeout))
        self.receiver = WebSocketReceiver(
            role: .client, maxFrameSize: options.maxFrameSize, maxMessageSize: options.maxMessageSize, inflater: nil)
        self.deliveryBatch = max(1, min(64, request.eventBufferCapacity / 2))
    }

    /// A weak reference to this connection for `@Sendable` callbacks (write completions,
    /// hops through `execute`); usable on the loop thread only.
    private(set) lazy var reference = LoopBoundBox(WeakConnection(self), loop: eventLoop)

    deinit {
        // Released before the attempt ended (during the closing handshake, or without
        // `close()`): the timers only hold a weak reference to us, but their entries would
        // stay in the loop's heap, and wake it when they fall due, long after we are gone.
        if !timers.isEmpty {
            let loop = eventLoop, handles = Array(timers.values)
            loop.execute { for handle in handles { loop.cancel(handle) } }
        }
        // The transport was dropped without `close()`: the socket goes with us (the stream
        // releases it on the loop), and a consumer still iterating must not wait forever.
        if machine.isClosed { return }
        for entry in sendsBeforeOpen { entry.flushWaiter?.resume(throwing: RealtimeError.cancelled) }
        events.send(draining: &pendingMessages)
        events.send(.ended(TransportEnd(clean: false, error: .cancelled)))
        events.finish()
    }

    // MARK: - Starting

    func start() {
        // `close()` may have ended the attempt before it started.
        guard machine.isIdle else { return }
        switch machine.start(now: clock.now) {
        case .connect(let url, let deadline):
            arm(.connect, at: deadline)
            connect(to: url, sendCredentials: true)
        }
    }

    /// Opens the socket for `url` (the first attempt, or after a redirect) and writes the
    /// opening handshake.
    func connect(to url: URL, sendCredentials: Bool) {
        let target: WebSocketTarget
        let handshake: WebSocketHandshake
        let proxy: HTTPProxy?
        do {
            target = try WebSocketTarget(url: url)
            proxy = try target.proxy(for: options.proxy, environment: ProcessInfo.processInfo.environment)
            var generator = SystemRandomNumberGenerator()
            handshake = try WebSocketHandshake(
                url: url, subprotocols: request.subprotocols, deflate: options.compression.deflateOffer,
                headers: handshakeHeaders(for: url, sendCredentials: sendCredentials), generator: &generator)
        } catch {
            if let ending = machine.handshakeFailed(error) { perform(ending) }
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

    /// The user's headers for a handshake to `url`. Off the first origin, every header that
    /// may carry a credential stays behind (``HTTPHeaders/isSensitive(_:markedSensitive:)``,
    /// the rule the SSE transport follows). Credentials in the URL (`ws://user:pw@host/`) become `Authorization: Basic`
    /// as libcurl sends them for SSE: unless the user set `Authorization` themselves, and
    /// only to the URL's own origin (a redirect's `Location` may carry its own).
    func handshakeHeaders(for url: URL, sendCredentials: Bool) -> HTTPHeaders {
        var headers = request.headers
        if !sendCredentials { headers = headers.removingSensitive(markedSensitive: request.sensitiveHeaderNames) }
        if !headers.contains("Authorization"),
            let basic = url.basicAuthorization ?? (sendCredentials ? request.url.basicAuthorization : nil)
        {
            headers.add(name: "Authorization", value: basic)
        }
        return headers
    }

    // MARK: - ByteStreamDelegate

    func byteStreamDidConnect(_ stream: any ByteStream) {
        // The stream now writes the handshake it holds: it may reach the server.
        machine.streamConnected()
    }

    func byteStream(_ stream: any ByteStream, didRead bytes: UnsafeRawBufferPointer) {
        if machine.isHandshaking {
            receiveHandshakeBytes(bytes)
        } else if machine.isRefused {
            collectErrorBody(bytes)
        } else if !machine.isClosed {
            receiveFrames(bytes)
        }
    }

    func byteStream(_ stream: any ByteStream, didCloseWith error: RealtimeError?) {
        self.stream = nil
        switch machine.streamClosed(error) {
        case .none: break
        case .finishErrorBody: finishErrorBody()
        case .end(let ending): perform(ending)
        }
    }

    // MARK: - Ending

    /// Performs the machine's end: the best-effort close frame, then the release of the
    /// socket and every timer, the failure of waiting senders, `ended`, and the end of the
    /// event stream.
    func perform(_ ending: Machine.Ending) {
        if let code = ending.closeFrame {
            writeFrame(encoder.close(code: code, reason: ""), completion: nil)
        }
        assert(machine.isClosed && machine.deadlines.armed.isEmpty, "an end leaves no timer armed")
        for timer in timers.values { eventLoop.cancel(timer) }
        timers = [:]
        if let stream {
            stream.delegate = nil
            stream.close()
            self.stream = nil
        }
        rejectSends(RealtimeError(.notConnected, detail: "connection closed"))
        // Messages decoded before the end come before it.
        deliverPending()
        events.send(.ended(ending.end))
        events.finish()
    }
}

/// A weak reference, for callbacks that must not keep a connection alive.
struct WeakConnection {
    weak var connection: WebSocketConnection?

    init(_ connection: WebSocketConnection) {
        self.connection = connection
    }
}

/// Loop-confined: reached through `LoopBoundBox`, never shared across threads directly.
@available(*, unavailable)
extension WebSocketConnection: Sendable {}
