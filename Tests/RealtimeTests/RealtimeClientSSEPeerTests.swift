#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// RealtimeClient + the real SSE transport against third-party servers: `sse-starlette` under
/// uvicorn and `aiohttp-sse` (Tests/Peers, started from the `.venv` that `make test` installs).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct RealtimeClientSSEPeerTests {
    static let certificates: Result<TestCertificates, any Error> = Result {
        try TestCertificates.shared()
    }

    private func client(
        _ peer: PythonPeer, _ path: String, scheme: String = "http",
        _ configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> RealtimeClient {
        var c = RealtimeClient.Configuration()
        c.backoff = .immediate
        c.reconnect = .finite
        c.connectTimeout = .seconds(5)
        c.idleTimeout = .seconds(10)
        configure(&c)
        return try RealtimeClient(url: peer.url(scheme: scheme, path: path), configuration: c)
    }

    /// Every event until the client stops (bounded by `limit`).
    private func collect(_ client: RealtimeClient, limit: Int = 1_000) async -> [ClientEvent] {
        var out: [ClientEvent] = []
        for await e in client.events {
            out.append(e)
            if out.count >= limit { break }
        }
        return out
    }

    private func messages(_ events: [ClientEvent]) -> [Message] {
        events.compactMap { if case .event(let m) = $0 { return m } else { return nil } }
    }

    private func lastError(_ events: [ClientEvent]) -> ErrorEvent? {
        events.compactMap { if case .error(let e) = $0 { return e } else { return nil } }.last
    }

    @Test(arguments: ["sse_starlette_app.py", "sse_aiohttp.py"])
    func eventsTypesIDsAndACleanEnd(script: String) async throws {
        let peer = try await PythonPeer.start(script: script)
        defer { peer.terminate() }
        let events = await collect(try client(peer, "/events?count=4"))
        let got = messages(events)
        #expect(got.map(\.id) == ["1", "2", "3", "4"])
        #expect(got.map(\.type) == Array(repeating: "tick", count: 4))
        #expect(got.map(\.text) == ["tick 1", "tick 2", "tick 3", "tick 4"])
        if case .open(let info)? = events.first {
            #expect(info.status == 200)
            #expect(info.transport == .sse)
        } else {
            Issue.record("first event is not open: \(events.first.map { "\($0)" } ?? "none")")
        }
        if case .closed(let c)? = events.last {
            #expect(c.clean)
            #expect(!c.willReconnect)
        } else {
            Issue.record("last event is not closed")
        }
    }

    /// HTTP/2: sse-starlette under Hypercorn over TLS offers `h2` through ALPN, and the
    /// transport takes it (the server sees HTTP/2; the open event says so); events, ids,
    /// resume and the clean end behave as over HTTP/1.1.
    @Test func http2OverTLSWithHypercorn() async throws {
        let certificates = try Self.certificates.get()
        let peer = try await PythonPeer.start(script: "sse_starlette_app.py", arguments: [
            "--server", "hypercorn", "--tls-cert", certificates.serverCertificateFile,
            "--tls-key", certificates.serverKeyFile,
        ])
        defer { peer.terminate() }
        let trust: (inout RealtimeClient.Configuration) -> Void = { $0.tls.trustRoots = .file(certificates.caCertificateFile) }

        let seen = messages(await collect(try client(peer, "/protocol", scheme: "https", trust)))
        #expect(seen.map(\.text) == ["2"], "the server must have seen an HTTP/2 request")

        let events = await collect(try client(peer, "/events?count=4", scheme: "https") {
            trust(&$0)
            $0.lastEventID = "1"
        })
        if case .open(let info)? = events.first {
            #expect(info.httpVersion == "2")
            #expect(info.status == 200)
        } else {
            Issue.record("first event is not open: \(events.first.map { "\($0)" } ?? "none")")
        }
        #expect(messages(events).map(\.id) == ["2", "3", "4"])
        if case .closed(let c)? = events.last {
            #expect(c.clean && !c.willReconnect)
        } else {
            Issue.record("last event is not closed")
        }

        // Statuses and content types are read from HTTP/2 response heads too.
        let unavailable = lastError(await collect(try client(peer, "/status?code=503&retry_after=0", scheme: "https") {
            trust(&$0)
            $0.reconnect = .limited(maxAttempts: 1)
        }))
        #expect(unavailable?.error.status == 503)
        let wrong = lastError(await collect(try client(peer, "/wrongtype", scheme: "https", trust)))
        #expect(wrong?.error.code == .invalidContentType)
        let none = await collect(try client(peer, "/nocontent", scheme: "https") {
            trust(&$0)
            $0.reconnect = .default
        })
        // 204 on the first attempt: nothing opened, so the stream ends without any event.
        #expect(none.isEmpty, "\(none)")
    }

    /// Over plain HTTP the stream stays on HTTP/1.1 (no cleartext upgrade is attempted).
    @Test func plainHTTPStaysOnHTTP11() async throws {
        let peer = try await PythonPeer.start(script: "sse_starlette_app.py")
        defer { peer.terminate() }
        let events = await collect(try client(peer, "/protocol"))
        if case .open(let info)? = events.first { #expect(info.httpVersion == "1.1") }
        #expect(messages(events).map(\.text) == ["1.1"])
    }

    @Test(arguments: ["sse_starlette_app.py", "sse_aiohttp.py"])
    func resumesAfterTheGivenLastEventID(script: String) async throws {
        let peer = try await PythonPeer.start(script: script)
        defer { peer.terminate() }
        let got = messages(await collect(try client(peer, "/events?count=6") { $0.lastEventID = "3" }))
        #expect(got.map(\.id) == ["4", "5", "6"])
    }

    @Test(arguments: ["sse_starlette_app.py", "sse_aiohttp.py"])
    func multilineAndMultibyteData(script: String) async throws {
        let peer = try await PythonPeer.start(script: script)
        defer { peer.terminate() }
        let got = messages(await collect(try client(peer, "/multiline")))
        let first = try #require(got.first)
        #expect(first.type == "multi")
        #expect(first.id == "m1")
        #expect(first.text == "line one\nline two\nzwei – ☃ – 雪")
    }

    @Test func crlfLineEndsAndServerRetry() async throws {
        let peer = try await PythonPeer.start(script: "sse_starlette_app.py")
        defer { peer.terminate() }
        let got = messages(await collect(try client(peer, "/events?count=3&sep=crlf&retry=1500")))
        #expect(got.map(\.text) == ["tick 1", "tick 2", "tick 3"])
    }

    @Test func llmPostStreamsDeltasThenEndsWithoutReconnect() async throws {
        let peer = try await PythonPeer.start(script: "sse_starlette_app.py")
        defer { peer.terminate() }
        let prompt = "héllo ☃ wörld"
        let body = Array(#"{"prompt": "\#(prompt)", "chunk": 2}"#.utf8)
        let c = try RealtimeClient(
            url: peer.url(scheme: "http", path: "/llm"), configuration: .llm(body: body))
        let events = await collect(c)
        let got = messages(events)
        #expect(!got.contains { $0.text == "[DONE]" }, "the terminator ends the reply; it is not delivered")
        #expect(events.last?.closeEvent == CloseEvent(clean: true, willReconnect: false))
        #expect(lastError(events) == nil)
        let text = got.compactMap { m -> String? in
            guard let data = m.text?.data(using: .utf8),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let choices = json["choices"] as? [[String: Any]],
                let delta = choices.first?["delta"] as? [String: Any]
            else { return nil }
            return delta["content"] as? String
        }.joined()
        #expect(text == prompt)
    }

    @Test func bearerTokenFromTheHeadersProvider() async throws {
        let peer = try await PythonPeer.start(script: "sse_starlette_app.py")
        defer { peer.terminate() }
        let allowed = messages(await collect(try client(peer, "/secure") { c in
            c.headersProvider = { _ in ["Authorization": "Bearer good"] }
        }))
        #expect(allowed.count == 3)
        let denied = await collect(try client(peer, "/secure") { c in
            c.headersProvider = { _ in ["Authorization": "Bearer wrong"] }
        })
        #expect(messages(denied).isEmpty)
        let error = try #require(lastError(denied))
        #expect(!error.willRetry)
        #expect(!error.error.description.contains("wrong"), "no credential in the error")
    }

    @Test func noContentStopsAndWrongTypeFails() async throws {
        let peer = try await PythonPeer.start(script: "sse_starlette_app.py")
        defer { peer.terminate() }
        var reconnecting = try client(peer, "/nocontent") { $0.reconnect = .default }
        let none = await collect(reconnecting)
        #expect(messages(none).isEmpty)
        // 204 on the first attempt: nothing opened, so the stream ends without any event.
        #expect(none.isEmpty, "\(none)")

        reconnecting = try client(peer, "/wrongtype") { $0.reconnect = .default }
        let wrong = try #require(lastError(await collect(reconnecting)))
        #expect(wrong.error.code == .invalidContentType)
        #expect(!wrong.willRetry)
    }

    @Test func serverErrorIsRetriedWithRetryAfter() async throws {
        let peer = try await PythonPeer.start(script: "sse_starlette_app.py")
        defer { peer.terminate() }
        let c = try client(peer, "/status?code=503&retry_after=0") { $0.reconnect = .limited(maxAttempts: 2) }
        let events = await collect(c)
        let errors = events.compactMap { if case .error(let e) = $0 { return e } else { return nil } }
        #expect(errors.first?.error.code == .httpStatus)
        #expect(errors.first?.error.status == 503)
        #expect(errors.first?.willRetry == true)
        #expect(errors.last?.willRetry == false)
    }
}
#endif
