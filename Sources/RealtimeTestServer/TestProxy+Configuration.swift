extension TestProxy {
    /// How a ``TestProxy`` behaves.
    package struct Configuration: Sendable {
        /// Basic credentials the proxy demands (RFC 9110 §11.7.1, RFC 7617). A request without
        /// a matching `Proxy-Authorization: Basic …` is answered 407 with
        /// `Proxy-Authenticate: Basic realm="test-proxy"`. Default nil: no authentication.
        package var credentials: (user: String, password: String)?
        /// When set, every (authorized) request is answered with this status instead of being
        /// tunnelled or forwarded (e.g. 403, 502), to test how clients classify proxy refusals.
        /// Default nil.
        package var refusal: Int?
        /// Names the proxy resolves itself, to a loopback IP literal (e.g.
        /// `["origin.test": "127.0.0.1"]`): a client reaching such a name proves it went
        /// through the proxy. Besides these, only `localhost` and loopback IP literals are
        /// served (anything else is answered 502: the proxy never leaves the machine).
        package var hosts: [String: String] = [:]
        /// Longest request head accepted, bytes (a longer one is answered 400). Default 16 KiB.
        package var maxHeadSize = 16 * 1024
        /// Time allowed for a client to send its request head and for the origin to accept the
        /// TCP connection, each. Default 5 s.
        package var timeout: Duration = .seconds(5)

        /// A proxy that requires `credentials` when given, refuses with `refusal` when given, and maps host names through `hosts`.
        package init(credentials: (user: String, password: String)? = nil, refusal: Int? = nil, hosts: [String: String] = [:]) {
            self.credentials = credentials
            self.refusal = refusal
            self.hosts = hosts
        }
    }
}
