extension WebSocketConnectionStateMachine {
    package enum ReadAction: Sendable, Hashable {
        /// Feed the bytes to the receive pipeline.
        case decode
        /// Ignore them: the connection failed (RFC 6455 §7.1.7, reading has stopped and this is
        /// the rest of the last read) or is over.
        case discard
    }

    /// Bytes arrived after the handshake. Any byte proves the peer alive (idle timeout,
    /// heartbeat, path probe).
    package mutating func bytesReceived(now: Instant) -> ReadAction {
        switch state {
        case .open, .closingAsInitiator, .closingAsResponder:
            lastRead = now
            heartbeat.messageReceived(now: now)
            return .decode
        case .replying, .failing, .closed:
            return .discard
        case .idle, .handshaking, .refused:
            preconditionFailure("frame bytes before the handshake completed")
        }
    }

    package enum MessageAction: Sendable, Hashable {
        /// Hand the message to the consumer.
        case deliver
        /// Heartbeat traffic, or a message after the server's close frame: drop it.
        case consume
        /// A server's application heartbeat: write this answer, do not deliver.
        case reply(OutboundMessage)
    }

    /// A complete text or binary message came out of the receive pipeline.
    package mutating func messageReceived(_ message: Message, now: Instant) -> MessageAction {
        let sendsAllowed: Bool
        switch state {
        case .open: sendsAllowed = true
        case .closingAsInitiator(receivedClose: false, _): sendsAllowed = false
        default: return .consume
        }
        guard case .application = configuration.heartbeat.kind else { return delivered(now: now) }
        switch heartbeat.inspect(message, now: now) {
        case .deliver: return delivered(now: now)
        case .consume: return .consume
        // Nothing follows our close frame, not even a heartbeat answer (§5.5.1).
        case .reply(let answer): return sendsAllowed ? .reply(answer) : .consume
        }
    }

    /// A message goes to the application, which may answer it while the connection is open.
    private mutating func delivered(now: Instant) -> MessageAction {
        if case .open = state { lastDelivery = now }
        return .deliver
    }

    package enum PingAction: Sendable, Hashable {
        case none
        /// Write a pong with this payload (§5.5.2), then report ``pongWritten()`` when the
        /// kernel has taken it.
        case sendPong([UInt8])
        /// The peer keeps asking and reads nothing: end the attempt (`peerNotReading`).
        case end(Ending)
    }

    /// A ping arrived. While the peer takes our pongs, each ping gets one (the pongs of one
    /// read leave together). Once a read ends with pongs still in flight (``readFinished()``)
    /// the peer is not reading them: later pings only replace each other (§5.5.3: an
    /// endpoint may answer only the most recent ping), so memory stays flat, and the bytes
    /// their pongs would have taken are counted. When they pass
    /// ``Configuration/maxOutboundBytes`` the attempt ends with `peerNotReading`. No pong
    /// once a close frame was sent (§5.5.1).
    package mutating func pingReceived(_ payload: [UInt8], now: Instant) -> PingAction {
        guard case .open = state else { return .none }
        guard pongs.stalled else {
            pongs.inFlight += 1
            return .sendPong(payload)
        }
        pongs.waiting = payload
        pongs.owedBytes += Self.pongFrameSize(payload.count)
        guard pongs.owedBytes > configuration.maxOutboundBytes else { return .none }
        let error = RealtimeError(
            .peerNotReading,
            detail: "the peer sent pings without reading the answers (more than \(configuration.maxOutboundBytes) bytes owed)",
            closeCode: WebSocketCloseCode.policyViolation)
        return .end(finish(TransportEnd(clean: false, error: error), closeFrame: error.closeCode))
    }

    /// A read was processed and its writes handed to the stream: pongs still in flight now
    /// mean the peer is not reading them.
    package mutating func readFinished() {
        if pongs.inFlight > 0 { pongs.stalled = true }
    }

    /// The kernel took a pong (or the stream failed it). When none is left in flight the
    /// peer is reading again: nothing is owed any more.
    package mutating func pongWritten() {
        pongs.inFlight = max(pongs.inFlight - 1, 0)
        if pongs.inFlight == 0 {
            pongs.stalled = false
            pongs.owedBytes = 0
        }
    }

    /// The pong owed for the latest ping of a stall, once the stall is over; it is then in
    /// flight. The driver asks after each ``pongWritten()``.
    package mutating func pongToSend() -> [UInt8]? {
        guard case .open = state, !pongs.stalled, let payload = pongs.waiting else { return nil }
        pongs.waiting = nil
        pongs.inFlight += 1
        return payload
    }

    /// A client pong frame: 2 header bytes, the 4-byte mask, the payload (≤ 125, §5.5).
    static func pongFrameSize(_ payload: Int) -> Int { 6 + payload }

    /// A pong arrived: the answer to a heartbeat (or unsolicited, §5.5.3); either way, life.
    package mutating func pongReceived(now: Instant) {
        heartbeat.pongReceived(now: now)
    }

    package enum ClosingAction: Sendable, Hashable {
        case none
        /// Write what `send` accepted, then a close frame with `code` (nil: an empty close
        /// frame) and `reason`, and report ``closeFrameWritten()`` once the kernel took it;
        /// stop accepting sends, cancel the `heartbeat`, `idle`, `probe` and `write` timers,
        /// arm the `close` timer for `closeDeadline`, and keep reading (the server's close
        /// frame, then TCP's end) even if the consumer is full.
        case startClosing(code: UInt16?, reason: String, closeDeadline: Instant)
        /// Fail the connection (§7.1.7): stop reading the socket at once and drop the input
        /// not yet decoded (§7.1.1: nothing more from the peer is processed); stop accepting
        /// sends and cancel the `heartbeat`, `idle`, `probe` and `write` timers; write what
        /// `send` accepted, then a close frame with `code` (nil: ours is already written) and
        /// report ``closeFrameWritten()`` once the kernel took it; arm the `close` timer for
        /// `deadline`. The end follows the write, or the deadline if the peer does not read.
        case fail(code: UInt16?, deadline: Instant)
        /// The peer broke the protocol right after messages the application may answer: stop
        /// reading the socket at once and drop the input not yet decoded (§7.1.1), hand over
        /// the messages decoded before the violation, cancel the `heartbeat`, `idle`, `probe`
        /// and `write` timers, keep writing what `send` accepts, and arm the `close` timer for
        /// `deadline`: the connection fails then (``TimerAction/fail(code:deadline:)``).
        case holdForReplies(deadline: Instant)
        case end(Ending)
    }

    /// The server's close frame (§7.1.5): its code and reason are what the end reports.
    package mutating func closeReceived(code: UInt16?, reason: String, now: Instant) -> ClosingAction {
        switch state {
        case .open:
            peerClose = (code, reason)
            let end = TransportEnd(clean: true, error: Self.closeError(code))
            // Echo the status code (§5.5.1), then wait for the server to close TCP (§7.1.1).
            return startClosing(.closingAsResponder(end: end), code: code, reason: "", now: now)
        case .closingAsInitiator(let answered, var end):
            // The answer to our close: the handshake is complete.
            if !answered { peerClose = (code, reason) }
            end.clean = true
            state = .closingAsInitiator(receivedClose: true, end: end)
            return .none
        case .closingAsResponder, .replying, .failing, .closed:
            return .none
        case .idle, .handshaking, .refused:
            preconditionFailure("close frame before the handshake completed")
        }
    }

    /// What the server's close code means to the reconnect policy: 1000, 1001 (going away: a
    /// server shutting down or redeploying) and 1012 (service restart) are orderly ends; any
    /// other code is the server closing on an error, a network-class failure retried with
    /// backoff (1013 "try again later" and 1014 "bad gateway" like an HTTP 503 or 502).
    package static func closeError(_ code: UInt16?) -> RealtimeError? {
        guard let code else { return nil }
        switch code {
        case WebSocketCloseCode.normal, WebSocketCloseCode.goingAway, WebSocketCloseCode.serviceRestart:
            return nil
        default:
            let meaning = WebSocketCloseCode.meaning(code).map { " (\($0))" } ?? ""
            return RealtimeError(.remoteClosed, detail: "server closed with \(code)\(meaning)", closeCode: code)
        }
    }

    /// The receive pipeline found a violation (framing, UTF-8, size): fail the connection
    /// (§7.1.7) with the error's close code (1002 when it has none). Nothing more is read:
    /// the attempt ends with the error as soon as the close frame is written, without waiting
    /// for the server's answer (the closing handshake is for orderly closes; a flooding peer
    /// would otherwise be read, and inflated, until the close timeout). When a message was
    /// delivered less than ``Configuration/replyWindow`` ago, the close frame waits until that
    /// window is over, so the application's answers to it go out first.
    package mutating func protocolViolation(_ error: RealtimeError, now: Instant) -> ClosingAction {
        switch state {
        case .open:
            let code = error.closeCode ?? WebSocketCloseCode.protocolError
            let end = TransportEnd(clean: false, error: error)
            if let deadline = replyDeadline(now: now) {
                state = .replying(end: end, code: code)
                stopOpenConnectionTimers()
                return .holdForReplies(deadline: arm(.close, at: deadline))
            }
            return .fail(code: code, deadline: startFailing(end, now: now))
        case .closingAsInitiator(_, var end), .closingAsResponder(var end):
            if end.error == nil || end.error?.code == .cancelled {
                end.clean = false
                end.error = error
            }
            // Our close frame is out already: stop listening, and end once it is written.
            if closeFrameWrittenToKernel { return .end(finish(end)) }
            return .fail(code: nil, deadline: startFailing(end, now: now))
        case .replying, .failing, .closed:
            return .none
        case .idle, .handshaking, .refused:
            return .end(finish(TransportEnd(clean: false, error: error)))
        }
    }

    /// The end of the window for replies after a violation at `now`: ``Configuration/replyWindow``
    /// after the last message delivered (never beyond the close timeout), nil when that is past.
    private func replyDeadline(now: Instant) -> Instant? {
        guard let last = lastDelivery else { return nil }
        let until = last.advanced(by: configuration.replyWindow)
        return until > now ? min(until, now.advanced(by: configuration.closeTimeout)) : nil
    }

    /// The kernel took our close frame (or the stream failed it). Failing: the attempt ends
    /// now. Closing: the server's answer and TCP's end are still awaited.
    package mutating func closeFrameWritten() -> ClosingAction {
        switch state {
        case .failing(let end):
            return .end(finish(end))
        case .closingAsInitiator, .closingAsResponder:
            closeFrameWrittenToKernel = true
            return .none
        case .closed:
            return .none
        case .idle, .handshaking, .refused, .open, .replying:
            preconditionFailure("a close frame was written before the machine asked for one")
        }
    }

    package enum StreamClosedAction: Sendable, Hashable {
        case none
        /// A refused handshake: build the error from the excerpt gathered so far.
        case finishErrorBody
        case end(Ending)
    }

    /// The byte stream ended: EOF (`error` nil) or a failure.
    package mutating func streamClosed(_ error: RealtimeError?) -> StreamClosedAction {
        switch state {
        case .idle, .closed:
            return .none
        case .handshaking:
            let error = error ?? RealtimeError(.handshake, detail: "connection closed before the handshake response")
            return .end(finish(TransportEnd(clean: false, error: error, requestWasDelivered: requestMayHaveBeenSent)))
        case .refused:
            return .finishErrorBody
        case .open:
            // A TCP end without a close frame (§7.1.5: code 1006, not clean).
            var error = error ?? RealtimeError(.remoteClosed, detail: "connection closed without a close frame")
            if error.code == .tls {
                // A TLS alert once the upgrade is done broke the stream; the server had
                // accepted the handshake (and our certificate) already: retried like a cut.
                error = RealtimeError(.network, detail: "TLS alert after the upgrade (\(error.detail ?? "tls"))")
            }
            return .end(finish(TransportEnd(clean: false, error: error)))
        case .closingAsInitiator(_, let end), .closingAsResponder(let end), .replying(let end, _), .failing(let end):
            return .end(finish(end))
        }
    }

    /// Enters a closing state from `open`: the timers of an open connection stop and the
    /// closing handshake is bounded by ``Configuration/closeTimeout``.
    mutating func startClosing(_ next: State, code: UInt16?, reason: String, now: Instant) -> ClosingAction {
        state = next
        stopOpenConnectionTimers()
        let deadline = arm(.close, at: now.advanced(by: configuration.closeTimeout))
        return .startClosing(code: code, reason: reason, closeDeadline: deadline)
    }

    /// Enters `failing`: the close frame may take ``Configuration/failWriteTimeout`` to reach
    /// the kernel (never longer than a closing handshake already under way may still take).
    /// Returns the `close` deadline.
    mutating func startFailing(_ end: TransportEnd, now: Instant) -> Instant {
        state = .failing(end: end)
        stopOpenConnectionTimers()
        var deadline = now.advanced(by: min(configuration.failWriteTimeout, configuration.closeTimeout))
        if let closing = deadlines.close { deadline = min(deadline, closing) }
        return arm(.close, at: deadline)
    }

    private mutating func stopOpenConnectionTimers() {
        deadlines.heartbeat = nil
        deadlines.idle = nil
        deadlines.probe = nil
        deadlines.write = nil
        probeSince = nil
        writeProgress = nil
        pongs.waiting = nil // nothing follows the close frame (§5.5.1)
        heartbeat.stop()
    }
}
