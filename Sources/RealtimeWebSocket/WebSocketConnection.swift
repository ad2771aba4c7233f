#if os(Linux)
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// The loop-confined half of a `WebSocketTransport`: the thin driver of a
/// ``WebSocketConnectionStateMachine``. It owns the socket, the handshake codec, the receive
/// pipeline, the encoder and the timers, feeds the machine what happens, and performs the
/// actions it returns.
///
/// The seam: the connection takes its scheduler (`Loop`: the time, timers, queued work) and
/// the byte streams it opens (`makeStream`) from outside. Production passes the epoll
/// `EventLoop` and `SocketByteStream`; tests pass a manual scheduler and an in-memory stream
/// and drive the same code without a socket or a clock.
///
/// Threading: every method runs on `loop`'s thread. The transport reaches the
/// connection only through a `LoopBound` box (which checks the thread on every access), and
/// callbacks that must be `@Sendable` hold ``reference`` (a weak reference in a
/// `LoopBound` box), so the class itself is not `Sendable`.
final class WebSocketConnection<Loop: LoopScheduler, Stream: ByteStream>: ByteStreamDelegate {
    typealias Machine = WebSocketConnectionStateMachine<Loop.Instant>
    typealias Completion = @Sendable (RealtimeError?) -> Void
    typealias Sender = CheckedContinuation<Void, any Error>
    typealias SendMachine = WebSocketSendMachine<Sender>

    let request: TransportRequest
    let options: WebSocketOptions
    let loop: Loop
    /// Where the attempt's events go (the owner's sink, attached at start).
    var events = TransportOutlet()
    /// Opens the byte stream for one connection (the first, or after a redirect), reading at
    /// most this many bytes at a time.
    let makeStream: (_ readChunkSize: Int) -> Stream

    var machine: Machine
    /// The one queue of outbound messages, from `send` (any task, through the transport) to
    /// the byte stream; its phase follows this connection's.
    let sends: LockedValue<SendMachine>
    var stream: Stream?
    var handshake: WebSocketHandshake?
    /// decoder → inflater (once permessage-deflate is agreed) → assembler.
    var receiver: WebSocketReceiver<WebSocketInflater?>
    var encoder: WebSocketFrameEncoder
    /// Draws each handshake's `Sec-WebSocket-Key`.
    var keyGenerator: AnyRandomNumberGenerator
    /// permessage-deflate's sending half. None when the agreed client window is 8 bits (zlib
    /// cannot honour it): messages are then sent uncompressed (RFC 7692 §6).
    var deflater: WebSocketDeflater?
    /// One handle per armed timer; the machine's `deadlines` say which should exist.
    var timers = LoopTimers<Machine.Timer>()

    /// Messages decoded from the current read, handed to the channel together (one lock and at
    /// most one consumer wake-up per read, not per message); see `deliverPending()`.
    var pendingMessages: [TransportEvent] = []
    /// Hand over early at this many pending messages, so a large read overshoots the
    /// channel's capacity by at most this much.
    let deliveryBatch: Int
    /// Received bytes not yet decoded because the consumer's buffer filled up.
    var stashedInput: [UInt8] = []
    /// Reused for encoding a batch of outbound frames.
    var batchBuffer: [UInt8] = []
    /// A refused handshake's response and the body excerpt gathered so far.
    var refusal: (head: HTTPResponseHead, body: [UInt8], wanted: Int)?

    /// `random` (tests only) replaces the system generators for handshake keys and masks.
    init(
        request: TransportRequest, options: WebSocketOptions, loop: Loop,
        random: (any RandomNumberGenerator & Sendable)? = nil, makeStream: @escaping (_ readChunkSize: Int) -> Stream
    ) {
        self.request = request
        self.options = options
        self.loop = loop
        self.makeStream = makeStream
        self.encoder = WebSocketFrameEncoder(role: .client, generator: random ?? BufferedSystemRandom())
        self.keyGenerator = AnyRandomNumberGenerator(random ?? SystemRandomNumberGenerator())
        self.machine = Machine(configuration: Machine.Configuration(
            url: request.url, connectTimeout: request.connectTimeout, idleTimeout: request.idleTimeout,
            closeTimeout: options.closeTimeout, maxRedirects: request.maxRedirects,
            allowsInsecureRedirects: request.allowsInsecureRedirects, heartbeat: options.heartbeat,
            maxOutboundBytes: options.maxOutboundBytes, writeTimeout: options.writeTimeout,
            tcpUserTimeout: options.socket.userTimeout))
        self.sends = LockedValue(SendMachine(capacity: options.outboundQueueCapacity, maxBytes: options.maxOutboundBytes))
        self.receiver = WebSocketReceiver(
            role: .client, maxFrameSize: options.maxFrameSize, maxMessageSize: options.maxMessageSize, inflater: nil)
        self.deliveryBatch = max(1, min(64, request.eventBufferCapacity / 2))
    }

    /// A weak reference to this connection for `@Sendable` callbacks (write completions,
    /// hops through `execute`); usable on the loop thread only.
    private(set) lazy var reference = LoopBound(WeakConnection(self), loop: loop)

    deinit {
        // Released before the attempt ended, without `close()` (the close timer holds us
        // through a closing handshake): the other timers only hold a weak reference, but
        // their entries would stay in the loop's heap, and wake it when they fall due.
        if !timers.isEmpty {
            let loop = self.loop, handles = timers.handles
            loop.execute { for handle in handles { loop.cancel(handle) } }
        }
        // The transport was dropped without `close()`: the socket goes with us (the stream
        // releases it on the loop), and a consumer still iterating must not wait forever.
        if machine.isClosed { return }
        for waiter in sends.withLock({ $0.ended() }).fail { waiter.resume(throwing: RealtimeError.cancelled) }
        events.send(draining: &pendingMessages)
        events.send(.ended(TransportEnd(
            clean: false, code: machine.peerCloseCode, reason: machine.peerCloseReason, error: .cancelled)))
        events.finish()
    }

    // MARK: - Starting

    func start(delivering sink: any TransportSink) {
        // `close()` may have ended the attempt before it started: its `ended` goes now.
        events.attach(sink)
        guard machine.isIdle else { return }
        switch machine.start(now: loop.now) {
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
            handshake = try WebSocketHandshake(
                url: url, subprotocols: request.subprotocols, deflate: options.compression.deflateOffer,
                headers: handshakeHeaders(for: url, sendCredentials: sendCredentials), generator: &keyGenerator)
        } catch {
            if let ending = machine.handshakeFailed(error) { perform(ending) }
            return
        }
        var socketOptions = options.socket
        socketOptions.connectTimeout = nil // the attempt's own deadline covers everything
        let stream = makeStream(socketOptions.readChunkSize)
        stream.delegate = self
        self.stream = stream
        // The request is written once the stream is connected (a stream takes no bytes before).
        self.handshake = handshake
        stream.connect(to: ByteStreamEndpoint(
            host: target.host, port: target.port, tls: target.secure ? request.tls : nil, options: socketOptions,
            proxy: proxy, pendingLimit: options.maxConnectingPerAddress))
    }

    /// The user's headers for a handshake to `url`. Off the first origin, every header that
    /// may carry a credential stays behind (`HTTPHeaders.isSensitive(_:markedSensitive:)`,
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
        // The handshake request goes out now: it may reach the server.
        machine.streamConnected()
        if machine.isHandshaking, let handshake, let stream = self.stream {
            stream.write(handshake.request, completion: nil)
        }
    }

    func byteStreamWaitsForItsTurn(_ stream: any ByteStream) {
        if machine.streamWaitsForItsTurn() { cancel(.connect) }
    }

    func byteStreamBeginsAfterWaiting(_ stream: any ByteStream) {
        if let deadline = machine.streamBeginsAfterWaiting(now: loop.now) { arm(.connect, at: deadline) }
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

    /// Performs the machine's end: the best-effort close frame, then the end of the send
    /// queue (its waiting senders fail), the release of the socket (writes it still holds
    /// fail; the room they free admits nobody) and of every timer, `ended`, and the end of
    /// the event stream.
    func perform(_ ending: Machine.Ending) {
        if let code = ending.closeFrame {
            writeFrame(encoder.close(code: code, reason: ""), completion: nil)
        }
        assert(machine.isClosed && machine.deadlines.armed.isEmpty, "an end leaves no timer armed")
        perform(sends.withLock { $0.ended() })
        timers.cancelAll(on: loop)
        if let stream {
            stream.delegate = nil
            stream.close()
            self.stream = nil
        }
        // Messages decoded before the end come before it.
        deliverPending()
        events.send(.ended(ending.end))
        events.finish()
    }
}

/// A concrete generator over an injected one: the handshake takes `inout some
/// RandomNumberGenerator`, and Swift 6.3's IR generation crashes opening an existential
/// stored property for it inside the generic connection.
struct AnyRandomNumberGenerator: RandomNumberGenerator, Sendable {
    var base: any RandomNumberGenerator & Sendable

    init(_ base: any RandomNumberGenerator & Sendable) {
        self.base = base
    }

    mutating func next() -> UInt64 {
        base.next()
    }
}

/// A weak reference, for callbacks that must not keep a connection alive.
struct WeakConnection<Connection: AnyObject> {
    weak var connection: Connection?

    init(_ connection: Connection) {
        self.connection = connection
    }
}

/// Loop-confined: reached through `LoopBound`, never shared across threads directly.
@available(*, unavailable)
extension WebSocketConnection: Sendable {}
#endif
