#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The life of one WebSocket client connection attempt (RFC 6455 §4, §5.5, §7), without I/O:
/// events in (with the time they happened), actions out, for a thin driver to perform.
///
/// States: `idle` → `handshaking` (DNS, TCP, TLS, the opening handshake, redirects) →
/// `open` → `closingAsInitiator` (we sent the close frame), `closingAsResponder` (the server
/// sent it, we echoed it) or `failing` (§7.1.7: we stopped reading and wait only for our
/// close frame, with an error code, to reach the kernel) → `closed`. A violation right after
/// messages the application may answer goes through `replying` first (reading has stopped,
/// the application's sends still go out, for ``Configuration/replyWindow``). A non-101 answer
/// goes through `refused` while the driver collects a short body excerpt for the error.
///
/// Rules the machine keeps, whatever the order of events:
/// - at most one close frame is sent, and nothing after it (no pong, no heartbeat, no
///   application message: the closing handshake has begun, §5.5.1);
/// - exactly one end: every path reaches one `end` action, and after it every event is a
///   no-op;
/// - once the connection fails, nothing more from the peer is processed (§7.1.1), and the end
///   comes when the close frame is written or a short deadline passes, never after waiting
///   for the peer;
/// - timers are actions (`connect`, `heartbeat`, `idle`, `close`, `probe`, `write`) with deadlines
///   computed from the `now` passed in; ``deadlines`` lists the armed ones, and an `end`
///   cancels them all;
/// - the end's close code and reason are the server's (§7.1.5, §7.1.6): those of its close
///   frame (1005 when the frame had no code), 1006 when the connection opened and no close
///   frame came, nil when it never opened; never the code we sent, which failures carry as
///   their error's `closeCode`.
///
/// Impossible calls (`start` twice, a handshake outcome outside the handshake) are
/// `preconditionFailure`s: they are driver bugs, not network events.
package struct WebSocketConnectionStateMachine<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The timers a connection runs; the driver keeps one handle per kind.
    package enum Timer: Int, Hashable, CaseIterable, Sendable {
        /// Bounds DNS + TCP + TLS + the handshake (then, on a refusal, the body excerpt).
        case connect
        /// The next heartbeat check (`HeartbeatStateMachine`).
        case heartbeat
        /// The request's idle timeout; fires at the earliest possible deadline and re-arms.
        case idle
        /// Bounds the closing handshake (§7.1.1: the client may drop TCP after waiting), and
        /// the write of the close frame when failing.
        case close
        /// A path-change verification (``verifyRequested(within:now:)``).
        case probe
        /// Checks that writes waiting for the kernel make progress
        /// (``Configuration/writeTimeout``).
        case write
    }

    /// What the machine needs from the request and the transport's options.
    package struct Configuration: Sendable {
        package var url: URL
        package var connectTimeout: Duration
        package var idleTimeout: Duration?
        package var closeTimeout: Duration
        package var maxRedirects: Int
        /// Whether a `wss` handshake may be redirected to `ws` (clear text).
        package var allowsInsecureRedirects: Bool
        package var heartbeat: HeartbeatPolicy
        /// Bound on what the connection may owe the peer in bytes (see ``pingReceived(_:now:)``).
        package var maxOutboundBytes: Int
        /// How long bytes may wait for the kernel without any of them being taken before the
        /// peer is declared not reading (``OutboundProgress``); nil: never. Already bounded by
        /// the socket's `TCP_USER_TIMEOUT` (``effectiveWriteTimeout(_:tcpUserTimeout:)``).
        package var writeTimeout: Duration?
        /// How long a failing connection waits for its close frame to reach the kernel (at
        /// most ``closeTimeout``): the peer that broke the protocol may not be reading.
        package var failWriteTimeout: Duration
        /// How long after delivering a message a protocol violation waits before the close
        /// frame goes out, so that what the application sends in answer to the messages that
        /// preceded the violation goes out first (an echo client answers every message of a
        /// read that ends in a bad frame). Nothing is read meanwhile (§7.1.1); a violation with
        /// no message delivered that recently fails at once. Zero: never wait. Default
        /// ``defaultReplyWindow``.
        package var replyWindow: Duration
        /// 250 ms: far more than a consumer takes to answer on a loaded machine (microseconds
        /// to milliseconds), short beside any reconnect backoff, and under the second after
        /// which Autobahn's fuzzing server drops a client that has not closed.
        package static var defaultReplyWindow: Duration { .milliseconds(250) }

        package init(
            url: URL, connectTimeout: Duration = .seconds(10), idleTimeout: Duration? = nil,
            closeTimeout: Duration = .seconds(5), maxRedirects: Int = 10, allowsInsecureRedirects: Bool = false,
            heartbeat: HeartbeatPolicy = .disabled, maxOutboundBytes: Int = 16 << 20,
            writeTimeout: Duration? = .seconds(20), failWriteTimeout: Duration = .seconds(1),
            replyWindow: Duration = defaultReplyWindow, tcpUserTimeout: Duration? = nil
        ) {
            self.url = url
            self.connectTimeout = connectTimeout
            self.idleTimeout = idleTimeout
            self.closeTimeout = closeTimeout
            self.maxRedirects = maxRedirects
            self.allowsInsecureRedirects = allowsInsecureRedirects
            self.heartbeat = heartbeat
            self.maxOutboundBytes = maxOutboundBytes
            self.writeTimeout = Self.effectiveWriteTimeout(writeTimeout, tcpUserTimeout: tcpUserTimeout)
            self.failWriteTimeout = failWriteTimeout
            self.replyWindow = replyWindow
        }

        /// The write timeout applied: at most two thirds of `TCP_USER_TIMEOUT` when the socket
        /// sets one. A peer that keeps its TCP window shut is dropped by the kernel about the
        /// user timeout after the window closed (Linux ends zero-window probing then, tcp(7)),
        /// which is about when the last byte left; the write watch ends the connection 1 to
        /// 1.25 write timeouts after that byte. With two thirds, 1.25 × stays a sixth of the
        /// user timeout short of it (defaults 20 s and 30 s: at most 25 s), so such a
        /// connection ends as `peerNotReading`, which says what happened, rather than as the
        /// kernel's `network` "connection timed out".
        package static func effectiveWriteTimeout(_ writeTimeout: Duration?, tcpUserTimeout: Duration?) -> Duration? {
            guard let writeTimeout, let tcpUserTimeout, tcpUserTimeout > .zero else { return writeTimeout }
            return min(writeTimeout, tcpUserTimeout * 2 / 3)
        }
    }

    enum State: Sendable {
        case idle
        case handshaking
        case refused
        case open
        /// We sent a close frame; `receivedClose` once the server's answer arrived.
        case closingAsInitiator(receivedClose: Bool, end: TransportEnd)
        /// The server sent a close frame and we echoed it; waiting for TCP to end.
        case closingAsResponder(end: TransportEnd)
        /// The peer broke the protocol right after messages the application may still answer:
        /// nothing is read any more, sends are still written, and at the `close` deadline the
        /// connection fails (§7.1.7) with `code`.
        case replying(end: TransportEnd, code: UInt16)
        /// We failed the connection (§7.1.7): nothing is read any more; the end comes once our
        /// close frame is written (``closeFrameWritten()``) or at the `close` deadline.
        case failing(end: TransportEnd)
        case closed
    }

    package let configuration: Configuration
    var state = State.idle
    /// The URL of the current handshake (changes on redirects).
    package internal(set) var url: URL
    package internal(set) var redirects = 0
    /// A redirect left the first origin: credentials are no longer sent, even if a later
    /// redirect comes back (RFC 9110 §15.4).
    package internal(set) var credentialsDropped = false
    var heartbeat: HeartbeatStateMachine<Instant>
    /// When the last byte arrived, or reading resumed after a pause for the consumer
    /// (liveness for the idle timeout and the path probe).
    var lastRead: Instant?
    /// A byte stream of this attempt connected, so a handshake request may have reached a
    /// server (its bytes go out at once); stays true across redirects.
    package internal(set) var requestMayHaveBeenSent = false
    /// The byte stream waits for its turn to open (RFC 6455 §4.1): the `connect` deadline
    /// is off until it begins.
    var waitingForTurn = false
    /// Our close frame reached the kernel (``closeFrameWritten()``).
    var closeFrameWrittenToKernel = false
    /// The handshake succeeded: from here on every end reports a close code.
    var hasOpened = false
    /// When a message was last handed to the application (see ``Configuration/replyWindow``).
    var lastDelivery: Instant?
    /// The code (nil: none) and reason of the first close frame the server sent.
    var peerClose: (code: UInt16?, reason: String)?
    /// The write-progress watch: the kernel's byte count at the last check that saw it move,
    /// and when (nil: nothing was waiting at the last look).
    var writeProgress: (bytesWritten: UInt64, at: Instant)?
    /// The consumer's buffer is full and the driver stopped reading on purpose: silence is
    /// then not the peer's fault.
    package internal(set) var readsPausedForConsumer = false
    /// The start of the pending path-change verification.
    var probeSince: Instant?
    /// Armed timers and their deadlines.
    package internal(set) var deadlines = Deadlines()
    /// Pongs owed to the peer (RFC 6455 §5.5.3: only the most recent ping needs one).
    var pongs = Pongs()

    /// The pong side of the connection (see ``pingReceived(_:now:)``).
    struct Pongs: Sendable {
        /// Pongs written and not yet taken by the kernel.
        var inFlight = 0
        /// A read ended with pongs still in flight: the peer is not taking them, so only the
        /// latest ping gets an answer, once they are gone.
        var stalled = false
        /// The latest ping's payload while stalled.
        var waiting: [UInt8]?
        /// Frame bytes of the pongs asked for while stalled.
        var owedBytes = 0
    }

    package init(configuration: Configuration) {
        self.configuration = configuration
        self.url = configuration.url
        self.heartbeat = HeartbeatStateMachine(policy: configuration.heartbeat)
    }

    /// Deadlines of the armed timers (nil: not armed).
    package struct Deadlines: Sendable, Equatable {
        var connect, heartbeat, idle, close, probe, write: Instant?

        package subscript(timer: Timer) -> Instant? {
            get {
                switch timer {
                case .connect: return connect
                case .heartbeat: return heartbeat
                case .idle: return idle
                case .close: return close
                case .probe: return probe
                case .write: return write
                }
            }
            set {
                switch timer {
                case .connect: connect = newValue
                case .heartbeat: heartbeat = newValue
                case .idle: idle = newValue
                case .close: close = newValue
                case .probe: probe = newValue
                case .write: write = newValue
                }
            }
        }

        /// The armed timers.
        package var armed: [Timer] { Timer.allCases.filter { self[$0] != nil } }
    }

    // MARK: - Queries

    /// True once `opened` was reported and before the closing handshake began.
    package var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    /// True after the end action.
    package var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// True while the handshake runs (`send` then holds messages until the connection opens).
    package var isHandshaking: Bool {
        switch state {
        case .idle, .handshaking: return true
        default: return false
        }
    }

    /// True between a refusal and its end (the driver gathers the body excerpt).
    package var isRefused: Bool {
        if case .refused = state { return true }
        return false
    }

    /// True before ``start(now:)``.
    package var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// True while failing the connection (§7.1.7) and after the end: the socket is not read
    /// any more, and bytes already received are not processed.
    package var discardsInput: Bool {
        switch state {
        case .replying, .failing, .closed: return true
        default: return false
        }
    }

    /// The close code an end reports (RFC 6455 §7.1.5): the server's close frame's (1005 when
    /// it carried none), 1006 when the connection opened and no close frame came, nil when it
    /// never opened.
    package var peerCloseCode: UInt16? {
        if let peerClose { return peerClose.code ?? WebSocketCloseCode.noStatusReceived }
        return hasOpened ? WebSocketCloseCode.abnormalClosure : nil
    }

    /// The reason of the server's close frame (§7.1.6), nil when none came.
    package var peerCloseReason: String? { peerClose?.reason }

    /// The close frame was sent (or the attempt ended): nothing may be written any more.
    package var closeFrameSent: Bool {
        switch state {
        case .closingAsInitiator, .closingAsResponder, .failing, .closed: return true
        case .idle, .handshaking, .refused, .open, .replying: return false
        }
    }

    // MARK: - Shared actions

    /// How an attempt ends.
    package struct Ending: Sendable, Hashable {
        /// What `ended` reports.
        package var end: TransportEnd
        /// A best-effort close frame to write before the socket is dropped (the end does not
        /// wait for an answer), nil for none.
        package var closeFrame: UInt16?
    }

    /// Ends the attempt: every timer is cancelled (``deadlines`` is empty afterwards). The
    /// end's close code and reason are set here, from what the server sent
    /// (``peerCloseCode``), whatever path ends the attempt.
    mutating func finish(_ end: TransportEnd, closeFrame: UInt16? = nil) -> Ending {
        precondition(!isClosed, "WebSocketConnectionStateMachine ended twice")
        let frame = closeFrameSent ? nil : closeFrame
        var end = end
        end.code = peerCloseCode
        end.reason = peerCloseReason
        state = .closed
        deadlines = Deadlines()
        heartbeat.stop()
        probeSince = nil
        writeProgress = nil
        pongs = Pongs()
        return Ending(end: end, closeFrame: frame)
    }

    mutating func arm(_ timer: Timer, at deadline: Instant) -> Instant {
        deadlines[timer] = deadline
        return deadline
    }
}
