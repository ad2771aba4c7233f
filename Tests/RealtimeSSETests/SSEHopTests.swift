#if os(Linux)
import RealtimeCore
@testable import RealtimeSSE
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The redirect rules of ``SSEHop`` without a network (RFC 9110 §15.4).
@Suite("SSEHop: redirect rules", .timeLimit(.minutes(1)))
struct SSEHopTests {
    static let start = URL(string: "http://api.example:8080/v1/stream?x=1")!
    static let body = Array(#"{"q":1}"#.utf8)

    static func hop(_ method: String, body: [UInt8]? = SSEHopTests.body, headers: HTTPHeaders = [:]) -> SSEHop {
        SSEHop(url: start, method: method, body: body, headers: headers)
    }

    /// (status, method) → (method after, body kept).
    static let table: [(Int, String, String, Bool)] = [
        (303, "POST", "GET", false), (303, "PUT", "GET", false), (303, "PATCH", "GET", false),
        (303, "REPORT", "GET", false), (303, "DELETE", "GET", false), (303, "GET", "GET", false),
        (303, "HEAD", "HEAD", true),
        (301, "POST", "GET", false), (302, "POST", "GET", false),
        (301, "PUT", "PUT", true), (302, "PUT", "PUT", true), (301, "PATCH", "PATCH", true),
        (302, "PATCH", "PATCH", true), (301, "REPORT", "REPORT", true), (302, "REPORT", "REPORT", true),
        (301, "GET", "GET", true), (302, "GET", "GET", true),
        (307, "POST", "POST", true), (308, "POST", "POST", true), (307, "PUT", "PUT", true),
        (308, "PATCH", "PATCH", true), (307, "REPORT", "REPORT", true), (308, "GET", "GET", true),
    ]

    @Test("method and body per status and method")
    func methodAndBody() throws {
        for (status, method, after, keepsBody) in Self.table {
            let next = try Self.hop(method).following(status: status, location: "/next")
            #expect(next.method == after, "\(status) after \(method)")
            #expect(next.body == (keepsBody ? Self.body : nil), "\(status) after \(method)")
        }
    }

    @Test("a lower-case method is matched like its upper-case form")
    func lowerCaseMethod() throws {
        let next = try Self.hop("post").following(status: 302, location: "/next")
        #expect(next.method == "GET")
        #expect(next.body == nil)
    }

    @Test("body headers go with the body, and only then")
    func bodyHeaders() throws {
        let headers: HTTPHeaders = [
            "Content-Type": "application/json", "content-encoding": "gzip", "Content-Language": "en",
            "Content-Location": "/x", "Content-Length": "7", "Digest": "sha-256=x", "Last-Modified": "now",
            "Transfer-Encoding": "chunked", "X-Trace": "abc", "Accept-Language": "fr",
        ]
        let dropped = try Self.hop("POST", headers: headers).following(status: 303, location: "/next")
        #expect(dropped.headers.fields.map(\.name) == ["X-Trace", "Accept-Language"])
        let kept = try Self.hop("PUT", headers: headers).following(status: 308, location: "/next")
        #expect(kept.headers == headers)
        // A GET without a body has no body headers to drop.
        let get = try Self.hop("GET", body: nil, headers: ["Content-Type": "text/plain"]).following(status: 303, location: "/next")
        #expect(get.headers["Content-Type"] == "text/plain")
    }

    @Test("Location is resolved against the current URL")
    func resolution() throws {
        let cases: [(String, String)] = [
            ("/sse?count=2", "http://api.example:8080/sse?count=2"),
            ("other", "http://api.example:8080/v1/other"),
            ("../up", "http://api.example:8080/up"),
            ("?y=2", "http://api.example:8080/v1/stream?y=2"),
            ("//cdn.example/s", "http://cdn.example/s"),
            ("https://api.example/s", "https://api.example/s"),
            ("  /trimmed  ", "http://api.example:8080/trimmed"),
            ("/with space", "http://api.example:8080/with%20space"),
        ]
        for (location, expected) in cases {
            let next = try Self.hop("GET").following(status: 302, location: location)
            #expect(next.url.absoluteString == expected, "Location \(location)")
        }
    }

    @Test("a missing, empty or unusable Location is a .redirect error with the status, never quoting it")
    func unusableLocation() {
        for location in [nil, "", "   ", "ftp://files.example/x", "ws://api.example/x", "mailto:a@b", "http://", "http:///path"] as [String?] {
            do {
                _ = try Self.hop("GET").following(status: 307, location: location)
                Issue.record("accepted \(location ?? "nil")")
            } catch {
                #expect(error.code == .redirect)
                #expect(error.status == 307)
                if let location, location.count > 3 {
                    #expect(!error.description.contains(location))
                }
            }
        }
    }

    @Test("origins: scheme, host and port, default ports filled in, case ignored")
    func origins() {
        func same(_ a: String, _ b: String) -> Bool { SSEHop.sameOrigin(URL(string: a)!, URL(string: b)!) }
        #expect(same("http://a.example/x", "http://a.example:80/y?z"))
        #expect(same("https://a.example/x", "https://A.EXAMPLE:443/"))
        #expect(same("HTTP://a.example/x", "http://a.example/"))
        #expect(same("http://[::1]:9/x", "http://[::1]:9/y"))
        #expect(!same("http://a.example/x", "https://a.example/x"))
        #expect(!same("http://a.example/x", "http://a.example:8080/x"))
        #expect(!same("http://a.example/x", "http://b.example/x"))
        #expect(!same("http://a.example/x", "http://sub.a.example/x"))
        #expect(!same("http://127.0.0.1:9/x", "http://localhost:9/x"))
    }

    @Test("credentials stay on their origin; other headers and same-origin hops keep everything")
    func credentials() throws {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer t", "Proxy-Authorization": "Basic p", "Cookie": "s=1", "X-Api-Key": "k",
            "X-Auth-Token": "t2", "X-Trace": "abc",
        ]
        let same = try Self.hop("GET", body: nil, headers: headers).following(status: 302, location: "/elsewhere")
        #expect(same.headers == headers)
        for location in ["https://api.example:8080/x", "http://api.example:8081/x", "http://other.example:8080/x"] {
            var cross = try Self.hop("GET", body: nil, headers: headers).following(status: 307, location: location)
            #expect(cross.headers == ["X-Trace": "abc"], "Location \(location)")
            // Back on the first origin (from https only when allowed): what was dropped stays dropped.
            cross.allowsInsecureRedirects = true
            let back = try cross.following(status: 307, location: Self.start.absoluteString)
            #expect(back.headers == ["X-Trace": "abc"], "Location \(location)")
        }
    }

    @Test("X-Authorization, X-Auth-Key, Ocp-Apim-Subscription-Key and user-marked names stay on their origin")
    func vendorCredentials() throws {
        let headers: HTTPHeaders = [
            "X-Authorization": "a", "X-Auth-Key": "b", "Ocp-Apim-Subscription-Key": "c", "X-Tenant": "d", "X-Trace": "abc",
        ]
        var hop = Self.hop("GET", body: nil, headers: headers)
        hop.sensitiveHeaderNames = ["x-tenant"]
        let same = try hop.following(status: 302, location: "/elsewhere")
        #expect(same.headers == headers)
        let cross = try hop.following(status: 307, location: "http://other.example:8080/x")
        #expect(cross.headers == ["X-Trace": "abc"])
        #expect(cross.sensitiveHeaderNames == ["x-tenant"])
    }

    @Test("https to http is refused unless allowed; http to https and https to https are followed")
    func insecureRedirects() throws {
        let secure = SSEHop(url: URL(string: "https://api.example/stream")!, method: "GET", body: nil, headers: [:])
        for location in ["http://api.example/stream", "HTTP://other.example/x"] {
            do {
                _ = try secure.following(status: 302, location: location)
                Issue.record("followed https to \(location)")
            } catch {
                #expect(error.code == .redirect)
                #expect(error.status == 302)
                #expect(error.detail?.contains("https to http") == true)
            }
        }
        var allowed = secure
        allowed.allowsInsecureRedirects = true
        #expect(try allowed.following(status: 302, location: "http://api.example/stream").url.scheme == "http")
        #expect(try secure.following(status: 302, location: "https://other.example/x").url.host == "other.example")
        #expect(try Self.hop("GET").following(status: 302, location: "https://api.example/x").url.scheme == "https")
    }

    @Test("only 301, 302, 303, 307 and 308 are followed")
    func statuses() {
        #expect((300...399).filter(SSEHop.isRedirect) == [301, 302, 303, 307, 308])
    }
}
#endif
