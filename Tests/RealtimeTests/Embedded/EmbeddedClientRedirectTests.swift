#if os(Linux)
import Foundation
import Realtime
import RealtimeSSE
import RealtimeTesting
import Testing

/// The client's redirect settings reach the production SSE connection on the embedded stack:
/// `sensitiveHeaderNames` keeps a header on its origin, `maxRedirects` bounds the hops of an
/// attempt, `allowsInsecureRedirects` decides an `https` → `http` hop. Each hop is what the
/// connection handed to (scripted) libcurl.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientRedirectTests {
    /// Answers the current hop with a `status` redirect to `location`.
    static func redirect(_ server: EmbeddedSSEServer, _ status: Int = 307, to location: String) {
        server.respond(status: status, headers: [("Location", location)])
        server.finish()
    }

    /// A header named in `sensitiveHeaderNames` goes to the first origin only, like the
    /// built-in credentials; a plain header follows the redirect; the redirected hop opens.
    @Test func aSensitiveHeaderStaysOnItsOrigin() async throws {
        let t = try EmbeddedClient("http://peer.test/stream") {
            $0.headers = ["X-Tenant": "acme", "X-Plain": "p", "Authorization": "Bearer t"]
            $0.sensitiveHeaderNames = ["x-tenant"]
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        #expect(first.curl.hops.first?.headers["X-Tenant"] == "acme")
        Self.redirect(first, to: "/same-origin")
        Self.redirect(first, to: "http://other.test/stream")
        let hops = first.curl.hops
        #expect(hops.map(\.url.absoluteString) == ["http://peer.test/stream", "http://peer.test/same-origin", "http://other.test/stream"])
        #expect(hops[1].headers["X-Tenant"] == "acme", "same origin: kept")
        #expect(hops[2].headers["X-Tenant"] == nil && hops[2].headers["Authorization"] == nil)
        #expect(hops[2].headers["X-Plain"] == "p")
        first.respond()
        first.event("a")
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(a)")
    }

    /// `maxRedirects` bounds the hops of one attempt: one redirect more fails it with
    /// `redirect`, and that hop is not requested.
    @Test func maxRedirectsBoundsAnAttempt() async throws {
        let t = try EmbeddedClient { $0.maxRedirects = 2 }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        for n in 1...3 { Self.redirect(first, to: "/hop\(n)") }
        await rec.waitFor(1)
        let error = try #require(rec.events.first?.errorEvent?.error)
        #expect(error.code == .redirect)
        #expect(first.curl.hops.count == 3, "the first request and two redirects")
        #expect(first.ended)
    }

    /// An `https` → `http` redirect fails with `redirect` by default (the request would go in
    /// clear text); with `allowsInsecureRedirects` it is followed.
    @Test(arguments: [false, true]) func anInsecureRedirectNeedsConsent(allowed: Bool) async throws {
        let t = try EmbeddedClient("https://peer.test/stream") { $0.allowsInsecureRedirects = allowed }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        Self.redirect(first, to: "http://peer.test/plain")
        if allowed {
            #expect(first.curl.hops.last?.url.absoluteString == "http://peer.test/plain")
            first.respond()
            await rec.waitFor(1)
            #expect(rec.summary == "open(1)")
        } else {
            await rec.waitFor(1)
            #expect(rec.events.first?.errorEvent?.error.code == .redirect)
            #expect(first.curl.hops.count == 1, "never sent over http")
        }
    }
}
#endif
