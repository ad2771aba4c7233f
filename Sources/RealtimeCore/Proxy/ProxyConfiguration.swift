/// How a transport reaches its server: through the proxy the environment names, directly,
/// or through a given proxy. `SSEOptions.proxy` and
/// `WebSocketOptions.proxy` both take it.
public enum ProxyConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// libcurl's environment rules (default): `http_proxy` for `http`/`ws` (lowercase only),
    /// `https_proxy` or `HTTPS_PROXY` for `https`/`wss`, then `all_proxy` or `ALL_PROXY`;
    /// none of them when the host matches `no_proxy` or `NO_PROXY` (see `ProxyEnvironment`).
    case environment
    /// Connect directly, ignoring the environment.
    case none
    /// This proxy, e.g. `http://proxy.local:3128` or `http://user:pass@127.0.0.1:3128`
    /// (userinfo percent-decoded and sent as `Proxy-Authorization: Basic`; port 1080 when
    /// absent, as libcurl). SSE takes every scheme libcurl does (`https://`, `socks5h://`…);
    /// WebSocket takes `http://` proxies (HTTP `CONNECT`) and fails any other with
    /// `invalidConfiguration`.
    case url(String)

    /// `environment`, `none`, or `url(…)` with any userinfo replaced by `***`
    /// (`URLRedaction`), so a configuration can be logged without its proxy password.
    public var description: String {
        switch self {
        case .environment: return "environment"
        case .none: return "none"
        case .url(let text): return "url(\(URLRedaction.redacted(text)))"
        }
    }
}

extension ProxyConfiguration {
    /// The scheme of a proxy URL as libcurl reads it, lower-cased: the text before `://`, or
    /// `http` when there is none (`proxy.local:3128`). Never the rest of the URL, which may
    /// hold a password.
    package static func scheme(ofProxyURL text: String) -> String {
        let parts = text.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return "http" }
        let scheme = parts[0]
        // Only a scheme's characters (RFC 3986 §3.1); anything else is not a scheme at all.
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            return "invalid"
        }
        return scheme.lowercased()
    }
}
