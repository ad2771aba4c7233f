#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A URL's origin for deciding whether credentials may follow a redirect: scheme, host and
/// port, with the scheme's default port filled in (RFC 6454 §4–5, RFC 9110 §4.3.1). `ws` and
/// `wss` count as `http` and `https` (RFC 6455 §3: same ports, same security), so a WebSocket
/// handshake redirected from `wss://a` to `https://a` stays on its origin.
package struct HTTPOrigin: Hashable, Sendable {
    package let scheme: String
    package let host: String
    package let port: Int

    package init(_ url: URL) {
        var scheme = url.scheme?.lowercased() ?? ""
        if scheme == "ws" { scheme = "http" }
        if scheme == "wss" { scheme = "https" }
        self.scheme = scheme
        self.host = url.host?.lowercased() ?? ""
        self.port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }
}

extension HTTPHeaders {
    /// These fields without the ones that may carry a credential
    /// (`isSensitive(_:markedSensitive:)` with the user's `marked` names), order kept: what
    /// may be sent to another origin after a redirect (RFC 9110 §15.4 step 3).
    package func removingSensitive(markedSensitive marked: [String] = []) -> HTTPHeaders {
        HTTPHeaders(fields.filter { !Self.isSensitive($0.name, markedSensitive: marked) }.map { ($0.name, $0.value) })
    }
}
