#if os(Linux)
import CCurl
@_spi(Transport) import RealtimeCore
import RealtimeTesting
import RealtimeTestSupport
@testable import RealtimeSSE
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Redirects through the production SSE connection, libcurl played by the test
/// (``EmbeddedSSE``): each hop the connection hands to curl carries the method, body and
/// headers RFC 9110 §15.4 asks for, the limit holds, `Location` resolves (RFC 3986 §5), and
/// credentials never reach another origin. What curl puts on the wire for a hop (no
/// `Content-Length` after a 303, a body cut short) is over a socket in
/// `SSETransportRedirectTests`.
@Suite("SSEConnection on the embedded loop: redirects", .timeLimit(.minutes(1)), .endsEmbeddedConnections)
struct SSEConnectionEmbeddedRedirectTests {
    static let body = Array(#"{"prompt":"hi","stream":true}"#.utf8)
    static let credentials: HTTPHeaders = [
        "Authorization": "Bearer secret-token", "Cookie": "session=abc", "X-Api-Key": "k-123", "X-Trace": "abc",
    ]

    /// An attempt with `method`, a JSON body (none for GET) and body headers.
    static func bodyRequest(_ method: String, url: String = "http://example.test/redirect") -> EmbeddedSSE {
        EmbeddedSSE(url: url) {
            $0.method = method
            $0.body = method == "GET" ? nil : body
            $0.headers = ["Content-Type": "application/json", "Content-Language": "en", "X-Trace": "abc"]
            $0.lastEventID = "1"
        }
    }

    /// Answers the current hop with a `status` redirect to `location`, its body ended.
    static func redirect(_ sse: EmbeddedSSE, _ status: Int, to location: String) {
        sse.head(status, [("Location", location)])
        sse.complete()
    }

    /// Answers the current hop with an event stream carrying one event; whether it opened.
    @discardableResult
    static func opens(_ sse: EmbeddedSSE) -> ConnectionInfo? {
        sse.curl.effectiveURL = sse.curl.hops.last?.url
        sse.head(200)
        sse.body("id: 2\ndata: x\n\n")
        return sse.takeEvents().lazy.compactMap { if case .opened(let info) = $0 { info } else { nil } }.first
    }

    // MARK: - Method and body (RFC 9110 §15.4.2–§15.4.9)

    @Test(arguments: [301, 302])
    func aMovedPOSTBecomesAGETWithoutBodyOrBodyHeaders(status: Int) throws {
        let sse = Self.bodyRequest("POST")
        sse.start()
        Self.redirect(sse, status, to: "/sse")
        let next = try #require(sse.curl.hops.last)
        #expect(sse.curl.hops.count == 2)
        #expect(next.method == "GET" && next.body == nil)
        #expect(next.headers["Content-Type"] == nil && next.headers["Content-Language"] == nil)
        #expect(next.headers["X-Trace"] == "abc", "not a body header: kept")
        #expect(Self.opens(sse) != nil)
    }

    @Test(arguments: [301, 302], ["PUT", "PATCH", "REPORT"])
    func aMovedRequestOfAnotherMethodKeepsMethodBodyAndBodyHeaders(status: Int, method: String) throws {
        let sse = Self.bodyRequest(method)
        sse.start()
        Self.redirect(sse, status, to: "/sse")
        let next = try #require(sse.curl.hops.last)
        #expect(next.method == method && next.body == Self.body)
        #expect(next.headers["Content-Type"] == "application/json" && next.headers["Content-Language"] == "en")
    }

    @Test(arguments: [307, 308], ["GET", "POST", "PUT", "PATCH", "REPORT"])
    func temporaryAndPermanentRedirectsKeepEverything(status: Int, method: String) throws {
        let sse = Self.bodyRequest(method)
        sse.start()
        Self.redirect(sse, status, to: "/sse")
        let next = try #require(sse.curl.hops.last)
        #expect(next.method == method)
        #expect(next.body == (method == "GET" ? nil : Self.body))
        #expect(next.headers["Content-Type"] == "application/json")
        #expect(Self.opens(sse) != nil)
    }

    @Test func aChainAppliesTheRulesHopByHop() {
        let sse = Self.bodyRequest("POST")
        sse.start()
        Self.redirect(sse, 307, to: "/a")
        Self.redirect(sse, 303, to: "/b")
        Self.redirect(sse, 307, to: "/sse")
        #expect(sse.curl.hops.map(\.method) == ["POST", "POST", "GET", "GET"])
        #expect(sse.curl.hops.map(\.body) == [Self.body, Self.body, nil, nil])
        #expect(sse.curl.hops.map(\.url.path) == ["/redirect", "/a", "/b", "/sse"])
        #expect(Self.opens(sse) != nil)
    }

    // MARK: - Limit and Location

    @Test(arguments: [0, 1, 2, 3])
    func exactlyMaxRedirectsAreFollowedAndOneMoreFails(limit: Int) {
        let sse = EmbeddedSSE { $0.maxRedirects = limit }
        sse.start()
        for n in 1...3 {
            sse.head(307, [("Location", "/hop\(n)")])
            if n > limit {
                sse.complete(CURLE_WRITE_ERROR)  // the header callback refused the redirect
                let end = sse.ended()
                #expect(end?.error?.code == .redirect && end?.error?.status == 307, "redirect \(n) of \(limit) allowed")
                #expect(sse.curl.hops.count == limit + 1)
                return
            }
            sse.complete()
        }
        #expect(sse.curl.hops.count == 4)
        #expect(Self.opens(sse) != nil)
    }

    @Test(arguments: ["", " ", "ftp://example.test/sse", "http://"])
    func anUnusableLocationFailsWithRedirectAndGoesNowhere(location: String) {
        let sse = EmbeddedSSE()
        sse.start()
        sse.head(308, [("Location", location)])
        sse.complete(CURLE_WRITE_ERROR)
        let end = sse.ended()
        #expect(end?.error?.code == .redirect && end?.error?.status == 308)
        #expect(end?.error?.description.contains("ftp") == false, "the Location is never quoted")
        #expect(sse.curl.hops.count == 1)
    }

    @Test(arguments: [
        ("/sse?count=1", "http://example.test/sse?count=1"),
        ("../sse?count=1", "http://example.test/sse?count=1"),
        ("//other.test:8080/sse", "http://other.test:8080/sse"),
        ("next", "http://example.test/dir/next"),
        ("?page=2", "http://example.test/dir/hop?page=2"),
    ])
    func aRelativeLocationIsResolvedAgainstTheCurrentURL(location: String, resolved: String) {
        let sse = EmbeddedSSE(url: "http://example.test/dir/hop?loc=1")
        sse.start()
        Self.redirect(sse, 302, to: location)
        #expect(sse.curl.hops.last?.url.absoluteString == resolved)
        #expect(Self.opens(sse)?.url.absoluteString == resolved)
    }

    // MARK: - Credentials and origins (RFC 9110 §15.4 step 3)

    @Test(arguments: [301, 302, 303, 307, 308])
    func anotherOriginGetsNoCredentialsAndTheStreamOpensThere(status: Int) throws {
        let sse = EmbeddedSSE { $0.headers = Self.credentials }
        sse.start()
        Self.redirect(sse, status, to: "http://example.test:8080/sse")
        let first = try #require(sse.curl.hops.first)
        #expect(first.headers["Authorization"] == "Bearer secret-token" && first.headers["Cookie"] == "session=abc")
        let next = try #require(sse.curl.hops.last)
        #expect(next.headers["Authorization"] == nil && next.headers["Cookie"] == nil && next.headers["X-Api-Key"] == nil)
        #expect(next.headers["X-Trace"] == "abc")
        #expect(Self.opens(sse)?.url.absoluteString == "http://example.test:8080/sse")
    }

    @Test func anotherOriginGetsNoVendorOrUserMarkedCredential() throws {
        let sse = EmbeddedSSE {
            $0.headers = [
                "X-Authorization": "xa-secret", "X-Auth-Key": "xk-secret", "Ocp-Apim-Subscription-Key": "apim-secret",
                "X-Tenant": "tenant-secret", "X-Trace": "abc",
            ]
            $0.sensitiveHeaderNames = ["x-tenant"]
        }
        sse.start()
        Self.redirect(sse, 307, to: "http://other.test/sse")
        #expect(sse.curl.hops.first?.headers["X-Tenant"] == "tenant-secret")
        let next = try #require(sse.curl.hops.last)
        for name in ["X-Authorization", "X-Auth-Key", "Ocp-Apim-Subscription-Key", "X-Tenant"] {
            #expect(next.headers[name] == nil, "\(name) reached the other origin")
        }
        #expect(next.headers["X-Trace"] == "abc")
    }

    @Test func anotherHostOnTheSamePortGetsNoCredentials() throws {
        let sse = EmbeddedSSE(url: "http://127.0.0.1:8080/stream") { $0.headers = Self.credentials }
        sse.start()
        Self.redirect(sse, 307, to: "http://localhost:8080/sse")
        let next = try #require(sse.curl.hops.last)
        #expect(next.headers["Authorization"] == nil && next.headers["Cookie"] == nil && next.headers["X-Api-Key"] == nil)
        #expect(Self.opens(sse)?.url.host == "localhost")
    }

    /// A Location spelling the same origin differently (the scheme's case, its default port)
    /// still is the same origin.
    @Test(arguments: [301, 302, 303, 307, 308])
    func theSameOriginKeepsEveryUserHeader(status: Int) throws {
        let sse = EmbeddedSSE { $0.headers = Self.credentials }
        sse.start()
        Self.redirect(sse, status, to: "HTTP://example.test:80/sse")
        let next = try #require(sse.curl.hops.last)
        #expect(next.headers == Self.credentials)
    }

    @Test func credentialsDroppedOnTheWayStayDroppedWhenARedirectLeadsBack() throws {
        let sse = EmbeddedSSE { $0.headers = Self.credentials }
        sse.start()
        Self.redirect(sse, 307, to: "http://other.test/redirect")
        Self.redirect(sse, 307, to: "http://example.test/sse")
        let back = try #require(sse.curl.hops.last)
        #expect(back.url.host == "example.test")
        #expect(back.headers["Authorization"] == nil && back.headers["Cookie"] == nil)
        #expect(back.headers["X-Trace"] == "abc")
    }
}
#endif
