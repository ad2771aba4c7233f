import RealtimeCore

/// The table of header names every credential test uses: what a cross-origin redirect leaves
/// behind on both transports (and what is redacted), and what it keeps.
public enum CredentialHeaderTable {
    /// Names the built-in rule counts as credentials (`HTTPHeaders.isSensitive(_:)`).
    public static let builtIn = [
        "Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Credential", "X-Access", "X-Access-Token",
        "X-Auth", "Api-Key", "Private-Token", "X-Tenant-Secret",
    ]
    /// Names only the configuration marks (`sensitiveHeaderNames`), written in another case
    /// than the request's to hold the comparison ignoring case.
    public static let configured = ["x-customer"]
    /// The request's names for ``configured``.
    public static let configuredAsSent = ["X-Customer"]
    /// Harmless names: they follow a redirect anywhere.
    public static let kept = ["Accept-Language", "X-Request-ID", "Content-Type", "X-Trace"]

    /// One field per name, each with a value that names it (`value-of-x-api-key`).
    public static var headers: HTTPHeaders {
        HTTPHeaders((builtIn + configuredAsSent + kept).map { ($0, value(of: $0)) })
    }

    /// The value ``headers`` gives `name`.
    public static func value(of name: String) -> String { "value-of-\(name.lowercased())" }

    /// What went wrong with ``headers`` sent through a redirect, as seen by the servers: every
    /// credential in the `first` request and after a redirect on the `sameOrigin`, none on
    /// the `otherOrigin`, every harmless name there. Empty when all is right.
    public static func violations(first: HTTPHeaders, sameOrigin: HTTPHeaders, otherOrigin: HTTPHeaders) -> [String] {
        var found: [String] = []
        for name in builtIn + configuredAsSent {
            if first[name] != value(of: name) { found.append("\(name) left out of the first request") }
            if sameOrigin[name] != value(of: name) { found.append("\(name) left out on the same origin") }
            if otherOrigin[name] != nil { found.append("\(name) reached another origin") }
        }
        for name in kept where otherOrigin[name] != value(of: name) { found.append("\(name) was dropped") }
        return found
    }
}
