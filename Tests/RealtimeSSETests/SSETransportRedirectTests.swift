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

/// Redirects of one SSE attempt through libcurl against the loopback ``TestServer``: what
/// curl puts on the wire for a hop (a 303 sends no body and no body headers), a redirect's
/// endless body, the credential table across real origins, and no transfer left attached.
/// The RFC 9110 §15.4 rules hop by hop, the limit, `Location` resolution and credentials
/// across origins are on the embedded stack (`SSEConnectionEmbeddedRedirectTests`).
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
    func redirect(_ status: Int, to target: String) -> URL {
        server.url("/redirect?status=\(status)&to=\(Self.encoded(target))")
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

    // MARK: A redirect's body

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
