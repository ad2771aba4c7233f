/// Picks the proxy for a request from environment variables, by libcurl's rules
/// (`curl(1)` ENVIRONMENT, lib/url.c), so SSE (libcurl) and WebSocket (our client) agree:
/// 1. `no_proxy`, else `NO_PROXY`: a matching host goes direct (`NoProxyList`);
/// 2. `http_proxy` for `http` and `ws` — lowercase only: an upper-case `HTTP_PROXY` can be
///    set by a CGI request's `Proxy:` header ("httpoxy"), so libcurl ignores it;
///    `https_proxy`, else `HTTPS_PROXY`, for `https` and `wss`;
/// 3. `all_proxy`, else `ALL_PROXY`.
/// An empty value counts as unset. Sans-I/O: the variables are passed in (the transports
/// read the process environment at each connection attempt).
package struct ProxyEnvironment: Sendable, Hashable {
    package var variables: [String: String]

    package init(_ variables: [String: String]) {
        self.variables = variables
    }

    private func value(_ name: String) -> String? {
        guard let v = variables[name], !v.isEmpty else { return nil }
        return v
    }

    /// The proxy URL (as written in the variable) for a request to `scheme://host`, nil to
    /// connect directly. `host` may be bracketed.
    package func proxy(scheme: String, host: String) -> String? {
        if let noProxy = value("no_proxy") ?? value("NO_PROXY"), NoProxyList(noProxy).matches(host: host) {
            return nil
        }
        switch scheme.lowercased() {
        case "http", "ws":
            if let p = value("http_proxy") { return p }
        case "https", "wss":
            if let p = value("https_proxy") ?? value("HTTPS_PROXY") { return p }
        default:
            break
        }
        return value("all_proxy") ?? value("ALL_PROXY")
    }
}
