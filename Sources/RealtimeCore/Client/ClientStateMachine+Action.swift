extension ClientStateMachine {
    /// What the driver must do after an event, in the order given.
    package enum Action: Sendable {
        /// Hand `event` to the consumer's buffer, numbered `sequence` (emission order).
        case emit(ClientEvent, sequence: UInt64)
        /// End the consumer's events after what was emitted (the policy stopped).
        case finish
        /// Load the cursor from the store, then report ``ClientStateMachine/cursorLoaded(_:now:)``.
        case loadCursor
        /// Prepare attempt `plan.attempt` (headers, URL, transport), then report
        /// ``ClientStateMachine/transportMade(attempt:now:)`` or
        /// ``ClientStateMachine/attemptFailedToStart(attempt:error:now:)``.
        case connect(ConnectPlan)
        /// Call ``ClientStateMachine/timerFired(_:now:)`` with `token` at `deadline` (on the
        /// client's clock). At most one timer is armed; a new one replaces the old.
        case startTimer(token: UInt64, deadline: Duration)
        /// Disarm the timer.
        case cancelTimer
        /// Book a reconnect slot in the shared retry budget no earlier than `after` from now,
        /// then report ``ClientStateMachine/retrySlotReserved(_:now:)`` with the booked delay.
        case reserveRetrySlot(after: Duration)
        /// Ask the shared retry budget to admit the attempt now, then report
        /// ``ClientStateMachine/attemptAdmitted(wait:lateness:now:)``.
        case admitAttempt
        /// Close the live transport in an orderly way (suspend, end of reply).
        case closeTransport
        /// End the live transport at once (its network path is gone).
        case abortTransport
        /// Ask the live transport to prove it is alive within the timeout (path change).
        case verifyConnection(within: Duration)
        /// Stop observing the network monitor (the client is done).
        case stopObservingNetwork
        /// The next attempt waits for the consumer to process what it was given: report the
        /// consumer's progress (``ClientStateMachine/consumerProcessed(_:now:)``) now and
        /// whenever it processes more, until the next ``connect(_:)``. (Outside such a wait the
        /// machine needs no report: the consumer's hot path stays off the client's lock.)
        case awaitConsumer
        /// Cancel preparation work in flight (credential fetches, cursor loading).
        case cancelWork
        /// Drop everything buffered for the consumer and end its events now (user close).
        case terminate
        /// A record for the log handler.
        case log(ClientLogRecord)
        /// Hand the outbox to the open connection, in a task of its own: ask
        /// ``ClientStateMachine/nextQueuedSend()`` for one message at a time, send it on the
        /// attempt it names and report ``ClientStateMachine/queuedSendSettled(id:attempt:error:now:)``,
        /// until it answers nil.
        case drainSends
        /// Call ``ClientStateMachine/sendExpiryFired(now:)`` at `deadline` (client clock);
        /// replaces the expiry timer armed before, if any.
        case armSendExpiry(deadline: Duration)
        /// Disarm the expiry timer.
        case disarmSendExpiry
        /// These sends are over: return to their callers (`error` nil: sent), in this order.
        case resolveSends([SendResolution])
        /// Run the on-open hook for attempt `attempt`'s open connection, in a task that
        /// ``cancelWork`` cancels; report ``ClientStateMachine/openHookFinished(attempt:error:now:)``
        /// when it returns or throws, or with `openHookFailed` at `deadline` (client clock).
        case runOpenHook(attempt: Int, info: ConnectionInfo, deadline: Duration)
    }

    /// How one send ended.
    package struct SendResolution: Sendable, Hashable {
        package var id: UInt64
        /// nil: the message went out.
        package var error: RealtimeError?

        package init(id: UInt64, error: RealtimeError?) {
            self.id = id
            self.error = error
        }
    }

    /// The answer to ``ClientStateMachine/sendRequested(_:bytes:flush:now:)``.
    package enum SendAction: Sendable {
        /// Send it on attempt `attempt`'s transport now, in the caller's call; if the transport
        /// refuses it with `notConnected`, report
        /// ``ClientStateMachine/liveSendRefused(_:bytes:flush:attempt:now:)``.
        case sendLive(attempt: Int)
        /// Queued in the outbox as `id`: the caller waits for its ``SendResolution``. Perform
        /// `actions`.
        case queued(id: UInt64, [Action])
        /// Throw this at once.
        case fail(RealtimeError)
    }

    /// What the next attempt needs: its number, the cursor to resume from, and whether the
    /// credentials were rejected by the previous one (a 401: ask the provider for fresh ones).
    package struct ConnectPlan: Sendable, Hashable {
        package var attempt: Int
        package var cursor: String?
        package var credentialsRejected: Bool

        package init(attempt: Int, cursor: String?, credentialsRejected: Bool) {
            self.attempt = attempt
            self.cursor = cursor
            self.credentialsRejected = credentialsRejected
        }
    }

    /// The answer to ``ClientStateMachine/transportMade(attempt:now:)``.
    package enum TransportMadeAction: Sendable {
        /// Register the transport as the live one, install the relay, start it.
        case start([Action])
        /// Close the transport unstarted (the client was closed, suspended or lost the network).
        case discard([Action])
    }
}

/// One log record the client produces (secret-free by construction: codes, classes, numbers).
package struct ClientLogRecord: Sendable, Hashable {
    package var level: RealtimeLogLevel
    package var message: String
    package var metadata: [String: String]

    package init(_ level: RealtimeLogLevel, _ message: String, _ metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}
