/// The sans-I/O heartbeat of one connection (``HeartbeatPolicy``), driven by its transport.
///
/// The transport calls ``start(now:)`` when the connection opens, arms a timer for
/// ``nextDeadline``, calls ``tick(now:)`` when it fires and performs the returned action, and
/// reports inbound traffic with ``pongReceived(now:)`` / ``messageReceived(now:)`` (or
/// ``inspect(_:now:)`` for messages, which also recognises application heartbeats).
/// `Instant` is the transport's clock instant (`ContinuousClock.Instant`, or a manual clock's
/// in tests).
package struct HeartbeatStateMachine<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    package enum Action: Sendable, Hashable {
        /// Nothing to do yet; re-arm the timer for `HeartbeatStateMachine/nextDeadline`.
        case none
        /// Send this ping (a ping frame or the application payload), then re-arm the timer.
        case sendPing(OutboundMessage)
        /// Too many pings went unanswered (responder only: the server was silent too long):
        /// close the connection and end the attempt with this error (code `heartbeatTimeout`;
        /// its `closeCode` 1001 is the code our best-effort close frame carries).
        case declareDead(RealtimeError)
    }

    /// What to do with an inbound message (application heartbeats).
    package enum InboundAction: Sendable, Hashable {
        /// An ordinary message: deliver it to the application.
        case deliver
        /// A heartbeat reply: do not deliver it.
        case consume
        /// A server heartbeat: send this answer and do not deliver the message.
        case reply(OutboundMessage)
    }

    private enum State: Sendable {
        case idle
        /// `next`: when the next ping is due (``HeartbeatPolicy/Mode/responderOnly``: when the
        /// silence declares the peer dead).
        case running(next: Instant, unanswered: Int)
        case dead
    }

    package let policy: HeartbeatPolicy
    private var state: State = .idle
    /// When the read that answered the latest ping arrived (see `heard(now:)`).
    private var answeredAt: Instant?

    package init(policy: HeartbeatPolicy) {
        self.policy = policy
    }

    /// Pings sent since the peer was last heard from.
    package var unansweredPings: Int {
        if case .running(_, let n) = state { return n }
        return 0
    }

    /// When ``tick(now:)`` should next be called; nil when the heartbeat is disabled, not
    /// started, or the connection was declared dead.
    package var nextDeadline: Instant? {
        if case .running(let at, _) = state { return at }
        return nil
    }

    /// The connection opened at `now`: the first ping (or, responder only, the silence's end)
    /// is due one interval later.
    package mutating func start(now: Instant) {
        guard let interval = policy.interval else { return }
        switch state {
        case .idle: state = .running(next: now.advanced(by: interval), unanswered: 0)
        case .running, .dead: preconditionFailure("HeartbeatStateMachine.start called twice")
        }
    }

    /// The timer fired (or any moment the transport wants to check).
    package mutating func tick(now: Instant) -> Action {
        guard let interval = policy.interval, case .running(let at, let unanswered) = state else { return .none }
        guard now >= at else { return .none }
        if policy.mode == .responderOnly {
            state = .dead
            return .declareDead(RealtimeError(
                .heartbeatTimeout, detail: "nothing heard from the server for \(interval.millisecondsDescription)", closeCode: 1001))
        }
        if unanswered >= policy.missedLimit {
            state = .dead
            return .declareDead(RealtimeError(
                .heartbeatTimeout, detail: "\(unanswered) heartbeat(s) unanswered", closeCode: 1001))
        }
        var next = now.advanced(by: interval)
        if policy.mode == .fixedInterval {
            // Keep the cadence from the open; a tick that came late does not shift it, one
            // that missed whole periods (a stalled loop) resumes from now.
            let onSchedule = at.advanced(by: interval)
            if onSchedule > now { next = onSchedule }
        }
        state = .running(next: next, unanswered: unanswered + 1)
        return .sendPing(pingMessage)
    }

    /// A pong (or an application heartbeat reply) arrived: the peer is alive.
    package mutating func pongReceived(now: Instant) {
        heard(now: now)
    }

    /// Any inbound traffic (message, ping, even a partial frame) counts as liveness.
    package mutating func messageReceived(now: Instant) {
        heard(now: now)
    }

    /// Counts `message` as liveness and says whether it is heartbeat traffic to hide from
    /// the application (application heartbeats only; with ping frames every message is
    /// delivered). The responder comes first: a message it answers is answered even when
    /// ``ApplicationHeartbeat/isReply`` accepts it too.
    package mutating func inspect(_ message: Message, now: Instant) -> InboundAction {
        heard(now: now)
        guard case .application(let hb) = policy.kind else { return .deliver }
        if let responder = hb.responder, let answer = responder(message) { return .reply(answer) }
        if hb.isReply(message) { return .consume }
        return .deliver
    }

    /// The connection ended: no further actions.
    package mutating func stop() {
        state = .dead
    }

    private var pingMessage: OutboundMessage {
        switch policy.kind {
        case .ping(let payload): return .ping(payload)
        case .application(let hb): return hb.payload
        }
    }

    /// The peer is alive: the count restarts. With ``HeartbeatPolicy/Mode/whenIdle`` the
    /// next ping moves to one interval from now, except for the first read after a ping (it
    /// carries the answer, as a rule; its bytes and its frames are reported at the same
    /// `now`): that read keeps the schedule the ping set, one interval after it went out.
    /// Moving it by the round trip would make the timer of every idle connection fire twice
    /// per heartbeat: at the old deadline, only to find it moved, and again a round trip
    /// later. With ``HeartbeatPolicy/Mode/fixedInterval`` the schedule never moves. With
    /// ``HeartbeatPolicy/Mode/responderOnly`` the silence starts over.
    private mutating func heard(now: Instant) {
        guard let interval = policy.interval, case .running(let at, let unanswered) = state else { return }
        let answering = unanswered > 0 || answeredAt == now
        if answering { answeredAt = now }
        switch policy.mode {
        case .whenIdle where !answering, .responderOnly: state = .running(next: now.advanced(by: interval), unanswered: 0)
        case .whenIdle, .fixedInterval: state = .running(next: at, unanswered: 0)
        }
    }
}
