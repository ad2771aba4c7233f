@_spi(Transport) import RealtimeCore

extension WebSocketTarget {
    /// The proxy this target is reached through, nil for a direct connection.
    /// `environment` is read only for ``ProxyConfiguration/environment`` (libcurl's rules,
    /// `ws` as `http` and `wss` as `https`; see `ProxyEnvironment`).
    func proxy(for configuration: ProxyConfiguration, environment: @autoclosure () -> [String: String]) throws(RealtimeError) -> HTTPProxy? {
        switch configuration {
        case .none:
            return nil
        case .url(let text):
            return try HTTPProxy(url: text)
        case .environment:
            guard let text = ProxyEnvironment(environment()).proxy(scheme: secure ? "wss" : "ws", host: host) else { return nil }
            return try HTTPProxy(url: text)
        }
    }
}
