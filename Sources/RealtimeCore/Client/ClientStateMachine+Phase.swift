extension ClientStateMachine {
    /// Where the client is in its life. Suspension and reachability are flags beside it.
    enum Phase: Sendable {
        /// Not started: nobody iterated the events yet.
        case idle
        /// Loading the cursor from the store before the first attempt.
        case loadingCursor
        /// Between attempts (or before the first): waiting for whatever gate is closed.
        case waiting(Waiting)
        /// One attempt in flight (single-flight: never two).
        case attempting(Attempt)
        /// An attempt ended and its delay is being booked in the shared retry budget; what it
        /// reports waits for the booked delay (`retryIn` is the real one).
        case bookingRetrySlot(Verdict)
        /// The policy stopped (with this reason; nil for an orderly end). Events finish after
        /// what was emitted.
        case finished(RealtimeError?)
        /// The user closed the client. Nothing more happens.
        case closed
    }

    /// The attempt in flight.
    struct Attempt: Sendable {
        enum Stage: Sendable {
            /// The driver is fetching headers and making the transport.
            case preparing
            /// The transport is started, not open yet.
            case started
            /// The transport is open and the on-open hook (the application's handshake) runs
            /// on it, since `since` (client clock): the connection is not ready yet. Its
            /// messages go to the hook, and those it does not take wait for the `open`.
            case handshaking(ConnectionInfo, since: Duration)
            /// Open (ready) since `since` (client clock).
            case open(ConnectionInfo, since: Duration)
        }
        /// Why the client itself is ending this attempt, when it is.
        enum Ending: Sendable, Hashable {
            case suspend, networkLost
            /// ``ClientStateMachine/restart(now:)``: reconnect at once, not a failure.
            case restart
        }
        var number: Int
        /// The cursor the attempt resumes from (the one its request carries).
        var cursor: String?
        /// The attempt sends the resume plan's request (it resumes from ``cursor``).
        var resumes = false
        var stage: Stage = .preparing
        var ending: Ending?
        /// The on-open hook failed, or the application failed the connection
        /// (``ClientStateMachine/connectionFailed(attempt:error:closeCode:)``): the attempt
        /// ends with this error, whatever the transport reports.
        var failure: RealtimeError?

        /// The connection is ready: its `open` was emitted.
        var opened: Bool {
            if case .open = stage { return true }
            return false
        }

        /// The on-open hook runs on the transport's open connection (see
        /// ``ClientStateMachine/openHookFinished(attempt:error:now:)``).
        var hookRunning: Bool {
            if case .handshaking = stage { return true }
            return false
        }
    }

    /// Between attempts. The next attempt starts when every gate is open, in this order: not
    /// suspended; the network usable; a retry slot booked (shared budget); the deadline
    /// passed; the consumer caught up (exact resume); the attempt admitted (shared budget).
    struct Waiting: Sendable {
        enum Booking: Sendable, Hashable { case needed, inProgress, booked }
        enum Admission: Sendable, Hashable {
            case pending(tries: Int)
            case inProgress(tries: Int)
            /// Admitted for `at` (client clock); on time if the timer fires within `lateness`.
            case held(tries: Int, at: Duration, lateness: Duration)
            case done
        }
        /// When the delay (backoff, budget slot or admission hold) ends; nil: no delay.
        var deadline: Duration?
        /// Token of the armed timer, if any.
        var timer: UInt64?
        var booking: Booking
        var admission: Admission
        /// What ``ClientStateMachine/snapshot`` reports as the retry time.
        var retryAt: Duration
    }

    /// How an ended attempt is reported, once its delay is known.
    struct Verdict: Sendable {
        var attempt: Int
        var opened: Bool
        var end: TransportEnd
        /// The error to emit (nil: none, e.g. a clean end that reconnects).
        var error: RealtimeError?
        /// The failure counted in the statistics (the cause, not a policy wrapper).
        var counted: RealtimeError?
        /// The reason the client stops, when it does.
        var reason: RealtimeError?
        /// The delay before the next attempt; nil when the client stops.
        var delay: Duration?
        var decidedAt: Duration
        /// ``ClientStateMachine/restart(now:)`` came while the slot was being booked: the
        /// booked wait is cut short once the budget answers.
        var restartRequested = false
        var willRetry: Bool { delay != nil }
    }
}
