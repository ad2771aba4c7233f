/// What the client knows about the attempt that just ended, beyond its
/// `TransportEnd`; input to ``ReconnectPolicy/decide(_:context:backoff:using:)``.
package struct ReconnectContext: Sendable, Hashable {
    /// The attempt that ended, 1 for the client's first.
    package var attempt: Int
    /// Whether the attempt reached `opened` (a live stream) before it ended.
    package var opened: Bool
    /// How long the connection was open (zero when it never opened).
    package var uptime: Duration
    /// Whether repeating the request is safe: true for GET and for requests the user marked
    /// repeatable (`Configuration.requestIsRepeatable`), false for a plain POST.
    package var requestIsRepeatable: Bool
    /// Whether a 401 may trigger a credential refresh now: a provider exists and has not
    /// already been tried for this streak of 401s (a second 401 stops).
    package var canRefreshCredentials: Bool

    package init(
        attempt: Int, opened: Bool, uptime: Duration = .zero, requestIsRepeatable: Bool = true,
        canRefreshCredentials: Bool = false
    ) {
        self.attempt = attempt
        self.opened = opened
        self.uptime = uptime
        self.requestIsRepeatable = requestIsRepeatable
        self.canRefreshCredentials = canRefreshCredentials
    }
}
