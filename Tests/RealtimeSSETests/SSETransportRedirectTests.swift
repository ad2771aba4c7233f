#if os(Linux)
@_spi(Transport) import RealtimeCore
import RealtimeIO
@_spi(Transport) import RealtimeSSE
import RealtimeTestServer
import RealtimeTestSupport
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Redirects of one SSE attempt against the loopback ``TestServer``: the RFC 9110 §15.4 rules
/// for every method, the limit, `Location` resolution, credentials across origins, and what
/// the final request and ``ConnectionInfo`` carry.
///
/// Each test redirects from `/redirect` (or a handler) to `/sse`, so the recorded `/sse`
/// request is the follow-up the rule is about.
@Suite("SSETransport: redirects", .timeLimit(.minutes(1)))
struct SSETransportRedirectTests {
    let server: TestServer
    static let body = #"{"prompt":"hi","stream":true}"#

    init() throws {
        server = TestServer()
        try server.start()
    }

    /// `/redirect?status=S&to=TARGET` on `server`: one redirect with status S to TARGET.
    func redirect(_ status: Int, to target: String, on server: TestServer? = nil) -> URL {
        (server ?? self.server).url("/redirect?status=\(status)&to=\(Self.encoded(target))")
    }

    static func encoded(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// A request with a JSON body and body headers, resuming after id 1.
    func bodyRequest(_ url: URL, method: String) -> TransportRequest {
        request(url) {
            $0.method = method
            $0.body = method == "GET" ? nil : Array(Self.body.utf8)
            $0.headers = ["Content-Type": "application/json", "Content-Language": "en", "X-Trace": "abc"]
            $0.lastEventID = "1"
        }
    }

    // MARK: Method and body (RFC 9110 §15.4.2–§15.4.9)

    @Test("303 after POST/PUT/PATCH/REPORT/DELETE: GET without body or body headers", arguments: ["POST", "PUT", "PATCH", "REPORT", "DELETE"])
    func seeOtherBecomesGET(method: String) async throws {
        let r = await run(SSETransport(request: bodyRequest(redirect(303, to: "/sse?count=3"), method: method)))
        #expect(r.ids == ["2", "3"])
        let first = try #require(server.requests(path: "/redirect").first)
        #expect(first.method == method)
        #expect(first.bodyText == Self.body)
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(server.requests(path: "/sse").count == 1)
        #expect(seen.method == "GET")
        #expect(seen.body.isEmpty)
        #expect(seen.headers["Content-Type"] == nil)
        #expect(seen.headers["Content-Length"] == nil)
        #expect(seen.headers["Content-Language"] == nil)
        #expect(seen.headers["Transfer-Encoding"] == nil)
        // Not a body header: kept.
        #expect(seen.headers["X-Trace"] == "abc")
        #expect(seen.headers["Last-Event-ID"] == "1")
        #expect(seen.headers["Accept"] == "text/event-stream")
        #expect(r.end?.clean == true)
    }

    @Test("301/302 after POST: GET without body or body headers", arguments: [301, 302])
    func movedAfterPOSTBecomesGET(status: Int) async throws {
        let r = await run(SSETransport(request: bodyRequest(redirect(status, to: "/sse?count=2"), method: "POST")))
        #expect(r.ids == ["2"])
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(seen.method == "GET")
        #expect(seen.body.isEmpty)
        #expect(seen.headers["Content-Type"] == nil)
        #expect(seen.headers["Content-Length"] == nil)
        #expect(seen.headers["Content-Language"] == nil)
        #expect(seen.headers["X-Trace"] == "abc")
    }

    @Test("301/302 after PUT/PATCH/REPORT: method, body and body headers kept", arguments: [301, 302], ["PUT", "PATCH", "REPORT"])
    func movedKeepsOtherMethods(status: Int, method: String) async throws {
        let r = await run(SSETransport(request: bodyRequest(redirect(status, to: "/sse?count=2"), method: method)))
        #expect(r.ids == ["2"])
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(seen.method == method)
        #expect(seen.bodyText == Self.body)
        #expect(seen.headers["Content-Type"] == "application/json")
        #expect(seen.headers["Content-Language"] == "en")
        #expect(seen.headers["Last-Event-ID"] == "1")
    }

    @Test("307/308: method and body kept for every method", arguments: [307, 308], ["GET", "POST", "PUT", "PATCH", "REPORT"])
    func temporaryAndPermanentKeepEverything(status: Int, method: String) async throws {
        let r = await run(SSETransport(request: bodyRequest(redirect(status, to: "/sse?count=2"), method: method)))
        #expect(r.ids == ["2"])
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(seen.method == method)
        #expect(seen.bodyText == (method == "GET" ? "" : Self.body))
        #expect(seen.headers["Content-Type"] == "application/json")
        #expect(seen.headers["Last-Event-ID"] == "1")
    }

    @Test("a chain applies the rules hop by hop: POST -307-> POST -303-> GET -307-> GET")
    func chainHopByHop() async throws {
        let last = "/redirect?status=307&to=\(Self.encoded("/sse?count=2"))"
        let middle = "/redirect?status=303&to=\(Self.encoded(last))"
        let r = await run(SSETransport(request: bodyRequest(redirect(307, to: middle), method: "POST")))
        #expect(r.ids == ["2"])
        let methods = server.requests.map(\.method)
        let bodies = server.requests.map(\.bodyText)
        #expect(methods == ["POST", "POST", "GET", "GET"])
        #expect(bodies == [Self.body, Self.body, "", ""])
    }

    // MARK: Limit and Location

    @Test("exactly maxRedirects redirects are followed; one more fails with .redirect")
    func limit() async throws {
        let three = server.url("/redirect?n=3&status=307&to=\(Self.encoded("/sse?count=1"))")
        let ok = await run(SSETransport(request: request(three) { $0.maxRedirects = 3 }))
        #expect(ok.ids == ["1"])
        #expect(server.requests(path: "/redirect").count == 3)
        server.clearRequests()

        let tooMany = await run(SSETransport(request: request(three) { $0.maxRedirects = 2 }))
        #expect(tooMany.opened.isEmpty)
        let error = try #require(tooMany.end?.error)
        #expect(error.code == .redirect)
        #expect(error.status == 307)
        #expect(server.requests(path: "/redirect").count == 3)
        #expect(server.requests(path: "/sse").isEmpty)

        server.clearRequests()
        let none = await run(SSETransport(request: request(three) { $0.maxRedirects = 0 }))
        #expect(none.end?.error?.code == .redirect)
        #expect(server.requests.count == 1)
    }

    @Test("an empty Location, or one to another scheme, fails with .redirect and goes nowhere")
    func unusableLocation() async throws {
        for location in ["", "%20", "ftp%3A%2F%2F127.0.0.1%2Fsse", "http%3A%2F%2F"] {
            server.clearRequests()
            let r = await run(SSETransport(request: request(server.url("/sse?status=308&location=\(location)"))))
            #expect(r.opened.isEmpty, "Location \(location)")
            let error = try #require(r.end?.error, "Location \(location)")
            #expect(error.code == .redirect, "Location \(location)")
            #expect(error.status == 308, "Location \(location)")
            #expect(server.requests.count == 1, "Location \(location)")
        }
    }

    @Test("a relative Location is resolved against the current URL (RFC 3986 §5)")
    func relativeLocation() async throws {
        // Redirects with 302 to its `loc` parameter, whatever that is.
        server.setHandler(path: "/dir/hop") { w in
            try w.writeHead(status: 302, headers: ["Location": w.request.query["loc"] ?? ""], framing: .contentLength(0))
        }
        let port = server.port
        let cases: [(location: String, hops: Int)] = [
            ("/sse?count=1", 1),  // absolute path
            ("../sse?count=1", 1),  // relative path, dot segments
            ("//127.0.0.1:\(port)/sse?count=1", 1),  // network path
            ("hop?loc=\(Self.encoded("../sse?count=1"))", 2),  // relative path, same directory
            ("?loc=\(Self.encoded("/sse?count=1"))", 2),  // query only
        ]
        for c in cases {
            server.clearRequests()
            let r = await run(SSETransport(request: request(server.url("/dir/hop?loc=\(Self.encoded(c.location))"))))
            #expect(r.ids == ["1"], "Location \(c.location)")
            let info = try #require(r.opened.first, "Location \(c.location)")
            #expect(info.url.absoluteString == server.url("/sse?count=1").absoluteString, "Location \(c.location)")
            #expect(server.requests(path: "/dir/hop").count == c.hops, "Location \(c.location)")
        }
    }

    @Test("a redirect with an endless body is still followed (the body is cut, not awaited)")
    func endlessRedirectBody() async throws {
        server.setHandler(path: "/endless") { w in
            try w.writeHead(status: 302, headers: ["Location": "/sse?count=1"], framing: .chunked)
            let block = [UInt8](repeating: UInt8(ascii: "r"), count: 4096)
            while true { try w.write(block) }
        }
        // The connect timer bounds the whole redirect chain up to the final head, so waiting
        // for the body would end in the connect timeout (an error, no event) instead of "1".
        // How long the cut takes is not measured: on a loaded machine it is not ours to bound.
        let r = await run(SSETransport(request: request(server.url("/endless")) { $0.connectTimeout = .seconds(40) }))
        #expect(r.ids == ["1"])
        #expect(r.end?.error == nil)
    }

    // MARK: Credentials and origins (RFC 9110 §15.4 step 3)

    static let credentials: HTTPHeaders = [
        "Authorization": "Bearer secret-token", "Cookie": "session=abc", "X-Api-Key": "k-123", "X-Trace": "abc",
    ]

    @Test("another origin (port) gets no Authorization, Cookie or other credential header", arguments: [301, 302, 303, 307, 308])
    func crossOriginDropsCredentials(status: Int) async throws {
        let other = TestServer()
        try other.start()
        defer { other.stop() }
        let target = other.url("/sse?count=3").absoluteString
        let r = await run(SSETransport(request: request(redirect(status, to: target)) {
            $0.headers = Self.credentials
            $0.lastEventID = "1"
        }))
        #expect(r.ids == ["2", "3"])
        let first = try #require(server.requests(path: "/redirect").first)
        #expect(first.headers["Authorization"] == "Bearer secret-token")
        #expect(first.headers["Cookie"] == "session=abc")
        let seen = try #require(other.requests(path: "/sse").last)
        #expect(seen.headers["Authorization"] == nil)
        #expect(seen.headers["Cookie"] == nil)
        #expect(seen.headers["X-Api-Key"] == nil)
        #expect(seen.headers["X-Trace"] == "abc")
        // Resume still works on the other origin, and the info names where we ended up.
        #expect(seen.headers["Last-Event-ID"] == "1")
        let info = try #require(r.opened.first)
        #expect(info.url.absoluteString == target)
    }

    @Test("another origin gets no X-Authorization, X-Auth-Key, Ocp-Apim-Subscription-Key or user-marked header")
    func crossOriginDropsVendorCredentials() async throws {
        let other = TestServer()
        try other.start()
        defer { other.stop() }
        let headers: HTTPHeaders = [
            "X-Authorization": "xa-secret", "X-Auth-Key": "xk-secret", "Ocp-Apim-Subscription-Key": "apim-secret",
            "X-Tenant": "tenant-secret", "X-Trace": "abc",
        ]
        let r = await run(SSETransport(request: request(redirect(307, to: other.url("/sse?count=1").absoluteString)) {
            $0.headers = headers
            $0.sensitiveHeaderNames = ["x-tenant"]
        }))
        #expect(r.ids == ["1"])
        let first = try #require(server.requests(path: "/redirect").first)
        #expect(first.headers["X-Auth-Key"] == "xk-secret")
        #expect(first.headers["X-Tenant"] == "tenant-secret")
        let seen = try #require(other.requests(path: "/sse").last)
        for name in ["X-Authorization", "X-Auth-Key", "Ocp-Apim-Subscription-Key", "X-Tenant"] {
            #expect(seen.headers[name] == nil, "\(name) reached the other origin")
        }
        #expect(seen.headers["X-Trace"] == "abc")
    }

    /// The credential table through real redirects: every credential name, built in or
    /// configured, reaches the first origin and a same-origin redirect, and not another origin;
    /// the harmless names go everywhere.
    @Test("the credential table through a cross-origin and a same-origin redirect")
    func credentialTable() async throws {
        let other = TestServer()
        try other.start()
        defer { other.stop() }
        let table = CredentialHeaderTable.self
        for target in [other.url("/sse?count=1&away=1").absoluteString, "/sse?count=1&near=1"] {
            let r = await run(SSETransport(request: request(redirect(302, to: target)) {
                $0.headers = table.headers
                $0.sensitiveHeaderNames = table.configured
            }))
            #expect(r.ids == ["1"], "\(target)")
        }
        let first = try #require(server.requests(path: "/redirect").first)
        let near = try #require(server.requests(path: "/sse").first { $0.query["near"] == "1" })
        let away = try #require(other.requests(path: "/sse").first)
        let violations = table.violations(first: first.headers, sameOrigin: near.headers, otherOrigin: away.headers)
        #expect(violations.isEmpty, "\(violations)")
    }

    @Test("another origin (host, same port) gets no credentials")
    func crossHostDropsCredentials() async throws {
        let target = "http://localhost:\(server.port)/sse?count=1"
        let r = await run(SSETransport(request: request(redirect(307, to: target)) { $0.headers = Self.credentials }))
        #expect(r.ids == ["1"])
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(seen.headers["Authorization"] == nil)
        #expect(seen.headers["Cookie"] == nil)
        #expect(seen.headers["X-Api-Key"] == nil)
        #expect(seen.headers["X-Trace"] == "abc")
        #expect(r.opened.first?.url.host == "localhost")
    }

    @Test("the same origin keeps every user header", arguments: [301, 302, 303, 307, 308])
    func sameOriginKeepsCredentials(status: Int) async throws {
        // An absolute Location spelling the same origin differently still is the same origin.
        let target = "HTTP://127.0.0.1:\(server.port)/sse?count=1"
        let r = await run(SSETransport(request: request(redirect(status, to: target)) { $0.headers = Self.credentials }))
        #expect(r.ids == ["1"])
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(seen.headers["Authorization"] == "Bearer secret-token")
        #expect(seen.headers["Cookie"] == "session=abc")
        #expect(seen.headers["X-Api-Key"] == "k-123")
        #expect(seen.headers["X-Trace"] == "abc")
    }

    @Test("credentials dropped on the way stay dropped when a later redirect leads back")
    func droppedStayDropped() async throws {
        let other = TestServer()
        try other.start()
        defer { other.stop() }
        let back = server.url("/sse?count=1").absoluteString
        let r = await run(SSETransport(request: request(redirect(307, to: redirect(307, to: back, on: other).absoluteString)) {
            $0.headers = Self.credentials
        }))
        #expect(r.ids == ["1"])
        #expect(other.requests(path: "/redirect").first?.headers["Authorization"] == nil)
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(seen.headers["Authorization"] == nil)
        #expect(seen.headers["Cookie"] == nil)
        #expect(seen.headers["X-Trace"] == "abc")
    }

    // MARK: Resources

    @Test("followed, failed and cancelled redirect chains leave no transfer attached")
    func noTransferLeft() async throws {
        let loop = EventLoop(name: "redirect-test")
        let chain = server.url("/redirect?n=3&status=303&to=\(Self.encoded("/sse?count=1"))")
        let followed = await run(SSETransport(request: request(chain), eventLoop: loop))
        #expect(followed.ids == ["1"])
        let failed = await run(SSETransport(request: request(chain) { $0.maxRedirects = 1 }, eventLoop: loop))
        #expect(failed.end?.error?.code == .redirect)
        server.setHandler(path: "/silent") { w in try w.hold() }
        let cancelled = SSETransport(request: request(redirect(307, to: "/silent")), eventLoop: loop)
        let cancelledEvents = cancelled.eventStream(capacity: cancelled.request.eventBufferCapacity)
        #expect(await eventually { server.requests(path: "/silent").count == 1 })
        cancelled.close()
        for await _ in cancelledEvents {}
        #expect(await loop.submit { CurlMultiDriver.on(loop).activeTransfers } == 0)
        try await offloaded { loop.shutdown() }
    }
}
#endif
