@_spi(Transport) import RealtimeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request of an attempt's redirect chain: the first, or the one a redirect asks for.
///
/// Pure value logic; ``SSEConnection`` sends it. The transport follows redirects itself
/// (libcurl's `CURLOPT_FOLLOWLOCATION` is off) because libcurl 7.88 gets two RFC 9110 rules
/// wrong: it keeps a custom method (`CURLOPT_CUSTOMREQUEST`: PUT, PATCH, REPORT) across a 303,
/// and it keeps the caller's body headers (`Content-Type`) when it turns a POST into a GET.
///
/// The rules (RFC 9110 §15.4), applied by ``following(status:location:)``:
/// - 303 (§15.4.4): any method but HEAD becomes GET without a body.
/// - 301/302 (§15.4.2, §15.4.3): POST becomes GET without a body (what browsers and curl do,
///   which the notes there allow); every other method keeps its method and body.
/// - 307/308 (§15.4.8, §15.4.9): method and body are kept.
/// - When the body is dropped, its content-specific header fields go with it (§15.4 step 5).
/// - When the target's origin (scheme, host, port; RFC 6454) differs from the current one,
///   every credential-bearing user header (`HTTPHeaders.isSensitive(_:markedSensitive:)`:
///   `Authorization`, `Proxy-Authorization`, `Cookie`, names containing `auth`, `key`,
///   `token`, `secret`, `session`, `cookie`, `password` or `signature`, and the names in
///   `TransportRequest.sensitiveHeaderNames`) is removed (§15.4 step 3). Once removed it
///   stays removed for the rest of the chain, even if a later redirect leads back to the first
///   origin (as Fetch does).
/// - An `https` request is not redirected to `http` (its headers, cursor and body would
///   travel in clear text) unless `TransportRequest.allowsInsecureRedirects` is set.
/// - `Location` is resolved against the current URL (§10.2.2, RFC 3986 §5); it must be
///   present, non-empty, and name an `http` or `https` URL with a host.
package struct SSEHop: Sendable, Hashable {
    /// The absolute `http`/`https` URL this request goes to.
    package var url: URL
    /// Upper-cased method.
    var method: String
    /// The request body, nil for none.
    var body: [UInt8]?
    /// The user's header fields for this request; the transport adds its own (`Accept`,
    /// `Cache-Control`, `Last-Event-ID`) to every hop.
    package var headers: HTTPHeaders
    /// The user's extra credential header names, dropped with the built-in ones.
    var sensitiveHeaderNames: [String] = []
    /// Whether an `https` → `http` redirect is followed.
    var allowsInsecureRedirects = false

    /// The first request of an attempt.
    init(request: TransportRequest) {
        self.url = request.url
        self.method = request.method.uppercased()
        self.body = request.body
        self.headers = request.headers
        self.sensitiveHeaderNames = request.sensitiveHeaderNames
        self.allowsInsecureRedirects = request.allowsInsecureRedirects
    }

    init(url: URL, method: String, body: [UInt8]?, headers: HTTPHeaders) {
        self.url = url
        self.method = method.uppercased()
        self.body = body
        self.headers = headers
    }

    /// The statuses followed: 301, 302, 303, 307, 308.
    static func isRedirect(_ status: Int) -> Bool {
        status == 301 || status == 302 || status == 303 || status == 307 || status == 308
    }

    /// The request that follows a `status` redirect whose `Location` field is `location`.
    /// Throws ``RealtimeError/Code/redirect`` (with the status) for a missing, empty or
    /// unusable `Location`. The error never quotes the `Location` (it may carry a token).
    func following(status: Int, location: String?) throws(RealtimeError) -> SSEHop {
        let raw = location?.trimmingASCIISpaces() ?? ""
        guard !raw.isEmpty else {
            throw RealtimeError(.redirect, detail: "\(status) without a Location", status: status)
        }
        guard let target = URL(string: String(raw), relativeTo: url)?.absoluteURL else {
            throw RealtimeError(.redirect, detail: "\(status) with an unparsable Location", status: status)
        }
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw RealtimeError(.redirect, detail: "\(status) to an unsupported scheme", status: status)
        }
        guard let host = target.host, !host.isEmpty else {
            throw RealtimeError(.redirect, detail: "\(status) to a URL without a host", status: status)
        }
        if scheme == "http", url.scheme?.lowercased() == "https", !allowsInsecureRedirects {
            throw RealtimeError(.redirect, detail: "\(status) from https to http refused (insecure redirects are not allowed)", status: status)
        }

        var next = self
        next.url = target
        let becomesGET = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        if becomesGET {
            next.method = "GET"
            next.body = nil
        }
        if next.method != method || (body != nil && next.body == nil) {
            next.headers = Self.removing(from: next.headers, where: Self.describesContent)
        }
        if !Self.sameOrigin(url, target) {
            next.headers = next.headers.removingSensitive(markedSensitive: sensitiveHeaderNames)
        }
        return next
    }

    /// Whether `a` and `b` have the same origin: scheme, host and port, with the scheme's
    /// default port filled in (RFC 6454 §4–5; RFC 9110 §4.3.1).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        HTTPOrigin(a) == HTTPOrigin(b)
    }

    /// Content-specific header fields (RFC 9110 §15.4 step 5: `Content-Encoding`,
    /// `Content-Language`, `Content-Location`, `Content-Type`, `Content-Length`, `Digest`,
    /// `Last-Modified`, "including but not limited to"): every `Content-*` field, plus
    /// `Digest`, `Last-Modified` and `Transfer-Encoding`.
    static func describesContent(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasPrefix("content-") || lower == "digest" || lower == "last-modified"
            || lower == "transfer-encoding"
    }

    /// `headers` without the fields whose name matches `drop`, order kept.
    private static func removing(from headers: HTTPHeaders, where drop: (String) -> Bool) -> HTTPHeaders {
        HTTPHeaders(headers.fields.filter { !drop($0.name) }.map { ($0.name, $0.value) })
    }
}
