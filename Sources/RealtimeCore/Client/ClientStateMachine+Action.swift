extension ClientStateMachine {
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
        /// the effects.
        case queued(id: UInt64, Effects)
        /// Throw this at once.
        case fail(RealtimeError)
    }

    /// What the next attempt needs: its number, the cursor to resume from, whether it sends
    /// the resume plan's request (``Configuration/resumes`` and a cursor), and whether the
    /// credentials were rejected by the previous one (a 401: ask the provider for fresh ones).
    package struct ConnectPlan: Sendable, Hashable {
        package var attempt: Int
        package var cursor: String?
        package var credentialsRejected: Bool
        package var resumes: Bool

        package init(attempt: Int, cursor: String?, credentialsRejected: Bool, resumes: Bool = false) {
            self.attempt = attempt
            self.cursor = cursor
            self.credentialsRejected = credentialsRejected
            self.resumes = resumes
        }
    }

    /// The answer to ``ClientStateMachine/transportMade(attempt:now:)``.
    package enum TransportMadeAction: Sendable {
        /// Register the transport as the live one, install the relay, start it.
        case start(Effects)
        /// Close the transport unstarted (the client was closed, suspended or lost the
        /// network, or restarted, meanwhile); perform the effects (``Effects/ignored`` is
        /// ``Ignored/clientDone`` after a close).
        case discard(Effects)
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
