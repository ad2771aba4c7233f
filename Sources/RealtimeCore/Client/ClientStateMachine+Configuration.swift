extension ClientStateMachine {
    /// What the state machine needs to know of the client's configuration, resolved once.
    package struct Configuration: Sendable {
        package var backoff: BackoffPolicy
        package var reconnect: ReconnectPolicy
        /// Whether the request may be sent again after it reached the server (GET, or a POST
        /// the user marked repeatable).
        package var requestIsRepeatable: Bool
        /// Reconnect only once the consumer has processed what it was given, so the cursor
        /// covers every delivered event: SSE, and WebSocket with a `messageID`.
        package var waitsForConsumer: Bool
        /// A network monitor applies (one is configured and the host is not loopback).
        package var monitorsNetwork: Bool
        /// A headers provider exists: a 401 may refresh the credentials once per streak.
        package var refreshesCredentials: Bool
        /// Reconnects book slots in a shared retry budget.
        package var sharesRetryBudget: Bool
        /// The cursor is loaded from a store before the first attempt.
        package var loadsCursor: Bool
        /// The starting cursor (configured), if any.
        package var cursor: String?
        /// An end-of-stream terminator is configured: a finite stream that ends without it
        /// is `truncated`.
        package var hasTerminator: Bool
        /// How long a connection has to show a sign of life after a network path change.
        package var pathChangeProbeTimeout: Duration
        /// What a send does while no connection is open.
        package var sendPolicy: SendPolicy
        /// The transport can send (WebSocket); SSE sends fail with `sendNotSupported`.
        package var canSend: Bool
        /// An on-open hook runs on every open connection before the outbox goes out, and must
        /// finish within this time; nil: no hook.
        package var openHookTimeout: Duration?
        /// A resume plan exists: an attempt with a cursor sends the plan's resume request (which
        /// may be repeated even when the first request may not), and a finite stream cut
        /// before its terminator resumes instead of ending `truncated`.
        package var resumes: Bool
        /// Resumes in a row of a finite stream that bring no new cursor before it stops.
        package var maxResumesWithoutProgress: Int

        package init(
            backoff: BackoffPolicy = .default, reconnect: ReconnectPolicy = .default, requestIsRepeatable: Bool = true,
            waitsForConsumer: Bool = true, monitorsNetwork: Bool = false, refreshesCredentials: Bool = false,
            sharesRetryBudget: Bool = false, loadsCursor: Bool = false, cursor: String? = nil,
            hasTerminator: Bool = false, pathChangeProbeTimeout: Duration = .seconds(5),
            sendPolicy: SendPolicy = .failFast, canSend: Bool = true, openHookTimeout: Duration? = nil,
            resumes: Bool = false, maxResumesWithoutProgress: Int = 3
        ) {
            precondition(maxResumesWithoutProgress >= 1, "maxResumesWithoutProgress must be at least 1")
            self.backoff = backoff
            self.reconnect = reconnect
            self.requestIsRepeatable = requestIsRepeatable
            self.waitsForConsumer = waitsForConsumer
            self.monitorsNetwork = monitorsNetwork
            self.refreshesCredentials = refreshesCredentials
            self.sharesRetryBudget = sharesRetryBudget
            self.loadsCursor = loadsCursor
            self.cursor = cursor
            self.hasTerminator = hasTerminator
            self.pathChangeProbeTimeout = pathChangeProbeTimeout
            self.sendPolicy = sendPolicy
            self.canSend = canSend
            self.openHookTimeout = openHookTimeout
            self.resumes = resumes
            self.maxResumesWithoutProgress = maxResumesWithoutProgress
        }
    }
}
