import Foundation
import RealtimeMCP
import RealtimeTestSupport
import Testing

/// Servers that break Streamable HTTP (`Tests/Peers/mcp_hostile.py`): each gives a clear
/// typed error, and no request is ever POSTed twice.
@Suite("MCP hostile servers", .timeLimit(.minutes(4)), .serialized)
struct MCPHostileServerTests {
    /// Connects to `/<name>/mcp`, calls a tool and returns its outcome.
    static func call(
        _ peer: MCPPeer, _ name: String, configure: (inout MCPClient.Configuration) -> Void = { _ in },
        progress: ProgressLog? = nil, onClient: (MCPClient) async -> Void = { _ in }
    ) async throws -> Result<MCPToolResult, MCPError> {
        let client = Self.client(peer, name) {
            $0.requestTimeout = .seconds(20)
            configure(&$0)
        }
        await onClient(client)
        try await client.connect()
        let outcome: Result<MCPToolResult, MCPError>
        do {
            outcome = .success(try await client.callTool("t") { progress?.append($0) })
        } catch let error as MCPError {
            outcome = .failure(error)
        }
        await client.close()
        try await peer.expectNoRepeatedPOST("/\(name)/posts")
        return outcome
    }

    /// A client of `/<name>/mcp` speaking 2025-11-25.
    static func client(
        _ peer: MCPPeer, _ name: String, configure: (inout MCPClient.Configuration) -> Void = { _ in }
    ) -> MCPClient {
        var c = MCPClient.Configuration()
        c.revision = .fixed(.v2025_11_25)
        configure(&c)
        return MCPClient(url: peer.url("/\(name)/mcp"), configuration: c)
    }

    /// A server that asks for input forever: the client stops after its bound, having sent
    /// each round's requestState back untouched, and the call fails with a clear error.
    @Test("an input_required loop ends after maxInputRounds; every requestState went back as sent")
    func requestStateLoop() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let outcome = try await Self.call(peer, "stateloop", configure: { $0.revision = .negotiate; $0.maxInputRounds = 8 }) { client in
            await client.setRequestHandler("elicitation/create") { _ in ["action": "accept", "content": [:]] }
        }
        Self.expectFailure(outcome, .invalidResponse)
        if case .failure(let error) = outcome { #expect(error.detail?.contains("more than 8 times") == true, "\(error)") }
        let states = try await peer.record("/stateloop/states").arrayValue ?? []
        #expect(states.count == 9, "the first call and 8 rounds: \(states.count)")
        #expect(states == [.null] + (1...8).map { .string("state-\($0)") })
        try await peer.expectNoRepeatedPOST("/stateloop/posts")
        await peer.stop()
    }

    /// An HTTP+SSE server whose endpoint event names another origin: nothing is POSTed there
    /// (the request headers, credentials included, would go with it).
    @Test("an HTTP+SSE endpoint on another origin is refused before any POST")
    func endpointOnAnotherOrigin() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        var c = MCPClient.Configuration()
        c.revision = .fixed(.v2024_11_05)
        c.transport.headers.add(name: "Authorization", value: "Bearer secret")
        let client = MCPClient(url: peer.url("/evilorigin/mcp"), configuration: c)
        do {
            try await client.connect()
            Issue.record("connected through an endpoint on another origin")
        } catch let error as MCPError {
            #expect(error.code == .invalidResponse, "\(error)")
            #expect(error.description.contains("another origin"), "\(error)")
        }
        #expect(try await peer.record("/evilorigin/posts").objectValue?.isEmpty == true, "no POST reached the other origin")
        await client.close()
        await peer.stop()
    }

    /// An event stream that never names an endpoint (a plain SSE feed given as an MCP server)
    /// fails the connect at the request timeout instead of waiting for ever.
    @Test("an HTTP+SSE stream with no endpoint event fails connect() at the request timeout")
    func noEndpointEvent() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        var c = MCPClient.Configuration()
        c.revision = .fixed(.v2024_11_05)
        c.requestTimeout = .seconds(1)
        let client = MCPClient(url: peer.url("/noendpoint/mcp"), configuration: c)
        await #expect { try await client.connect() } throws: { ($0 as? MCPError)?.code == .timeout }
        await client.close()
        await peer.stop()
    }

    /// A failed connect leaves no half-made session for the application's requests: they fail
    /// with not_connected until a connect succeeds.
    @Test("after a failed connect() a request or a notification fails with not_connected and is not sent")
    func requestsAfterAFailedConnect() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        var c = MCPClient.Configuration()
        c.revision = .fixed(.v2025_11_25)
        let client = MCPClient(url: peer.url("/htmlinit/mcp"), configuration: c)
        await #expect { try await client.connect() } throws: { ($0 as? MCPError)?.code == .invalidResponse }
        await #expect { try await client.callTool("anything") } throws: { ($0 as? MCPError)?.code == .notConnected }
        await #expect { try await client.notify("notifications/roots/list_changed") } throws: {
            ($0 as? MCPError)?.code == .notConnected
        }
        await client.close()
        await peer.stop()
    }

    static func expectFailure(_ outcome: Result<MCPToolResult, MCPError>, _ code: MCPError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        switch outcome {
        case .success: Issue.record("the call succeeded", sourceLocation: sourceLocation)
        case .failure(let error): #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("hostile cases: 404 mid-session, wrong content type, batch, foreign id, early end, endless, oversize")
    func hostileCases() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        Self.expectFailure(try await Self.call(peer, "gone"), .sessionExpired)
        Self.expectFailure(try await Self.call(peer, "wrongtype"), .invalidResponse)
        Self.expectFailure(try await Self.call(peer, "batch"), .invalidResponse)
        Self.expectFailure(try await Self.call(peer, "badid"), .unknownResponseID)
        Self.expectFailure(try await Self.call(peer, "early"), .streamEnded)
        // The timeout covers the session set-up too: generous for a loaded machine.
        let endless = Self.client(peer, "endless") { $0.requestTimeout = .seconds(5) }
        try await endless.connect()
        do {
            _ = try await endless.callTool("t")
            Issue.record("an endless answer ended")
        } catch let error as MCPError {
            #expect(error.code == .timeout, "\(error)")
        }
        // Asked while the session is still open: the request's end closed its stream.
        #expect(try await peer.record("/endless/stopped") == true, "the timed-out request's stream is closed, not read on")
        await endless.close()
        let big = try await Self.call(peer, "bigjson") { $0.transport.maxMessageBytes = 1 << 20 }
        Self.expectFailure(big, .transport)
        if case .failure(let error) = big { #expect(error.underlying?.code == .messageTooLarge) }
        let latin1 = try await Self.call(peer, "badutf8")
        Self.expectFailure(latin1, .invalidResponse)
        if case .failure(let error) = latin1 { #expect(error.underlying?.code == .invalidUTF8) }
        await peer.stop()
    }

    @Test("with renewsExpiredSession a 404 starts a new session before the error is thrown; the request is not sent again")
    func renewedSession() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let client = Self.client(peer, "gone") { $0.renewsExpiredSession = true }
        try await client.connect()
        do {
            _ = try await client.callTool("t")
            Issue.record("the call succeeded")
        } catch let error as MCPError {
            #expect(error.code == .sessionExpired)
        }
        #expect(await client.transport.sessionID == "s1")
        #expect(try await client.listTools().items.isEmpty)
        await client.close()
        let counts = try await peer.postCounts("/gone/posts")
        #expect(counts["gone tools/call 2"] == 1)
        #expect(counts["gone initialize 3"] == 1)
        await peer.stop()
    }

    @Test("a server that re-sends event ids on resumption: each message is delivered once")
    func replayedIDs() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let log = ProgressLog()
        let outcome = try await Self.call(peer, "replay", progress: log)
        #expect((try? outcome.get())?.text == "resumed")
        #expect(log.all == [1, 2, 3])
        await peer.stop()
    }

    /// The server cuts the stream after every event and never answers: the request is resumed
    /// exactly `maxResumeAttempts` times, then fails with `stream_ended`; 0 never resumes.
    @Test("a stream cut again after every resumption is resumed maxResumeAttempts times, then fails", arguments: [0, 1, 3])
    func boundedResumptions(limit: Int) async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let name = "cutting\(limit)"
        let log = ProgressLog()
        let outcome = try await Self.call(peer, name, configure: { $0.transport.maxResumeAttempts = limit }, progress: log)
        Self.expectFailure(outcome, .streamEnded)
        #expect(try await peer.record("/\(name)/gets") == .number(Double(limit)), "one GET with Last-Event-ID per resumption")
        #expect(log.all == (0...limit).map { Double($0 + 1) }, "one progress event per stream, none twice")
        await peer.stop()
    }

    /// A request from the server with no handler is answered -32601; a handler that throws
    /// something other than an rpc error is answered -32603. The call goes on either way.
    @Test("server requests: no handler gets -32601, a handler's plain throw gets -32603")
    func serverRequestsWithoutAnAnswer() async throws {
        struct Boom: Error {}
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let unhandled = try await Self.call(peer, "asks1")
        #expect((try? unhandled.get())?.text == "ok")
        let answers = try await peer.record("/asks1/answers").arrayValue ?? []
        #expect(answers.count == 1 && answers.first?["id"] == "ask" && answers.first?["error"]?["code"] == -32601)
        let thrown = try await Self.call(peer, "asks2", onClient: { await $0.setRequestHandler("sampling/createMessage") { _ in throw Boom() } })
        #expect((try? thrown.get())?.text == "ok")
        #expect(try await peer.record("/asks2/answers").arrayValue?.first?["error"]?["code"] == -32603)
        await peer.stop()
    }

    /// 20 requests from the server at once against a limit of 4: four handlers run, the other
    /// 16 are refused with -32000 while they do, and the call's answer comes through.
    @Test("a flood of server requests runs at most maxConcurrentServerRequests handlers and refuses the rest")
    func serverRequestFlood() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        actor Running {
            var now = 0, most = 0
            func enter() { now += 1; most = max(most, now) }
            func leave() { now -= 1 }
        }
        let running = Running()
        let (released, release) = AsyncStream<Void>.makeStream()
        let outcome = try await Self.call(peer, "flood", configure: { $0.maxConcurrentServerRequests = 4 }, onClient: { client in
            await client.setRequestHandler("sampling/createMessage") { _ in
                await running.enter()
                for await _ in released { break }
                await running.leave()
                return [:]
            }
        })
        release.finish()
        #expect((try? outcome.get())?.text == "16 refused", "\(outcome)")
        #expect(await running.most == 4)
        await peer.stop()
    }

    @Test("a session id that is not visible ASCII fails the initialize with invalid_response")
    func invalidSessionID() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let client = Self.client(peer, "badsession")
        do {
            try await client.connect()
            Issue.record("connected with an invalid session id")
        } catch let error as MCPError {
            #expect(error.code == .invalidResponse, "\(error)")
            #expect(error.detail?.contains("Mcp-Session-Id") == true)
        }
        await client.close()
        await peer.stop()
    }

    /// A lost answer (the stream cut with no event id): a read and a read-only tool are sent
    /// again as new requests; a tool that may change something runs once and fails with
    /// `stream_ended`.
    @Test("a request whose answer was lost is re-issued only when repeating it is safe")
    func reissue() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let client = Self.client(peer, "reissue")
        try await client.connect()
        let tools = try await client.allTools()
        #expect(tools.map(\.name) == ["safe", "unsafe"])
        #expect(tools.map(\.isSafeToRepeat) == [true, false])
        #expect(try await client.callTool("safe").text == "ok")
        do {
            _ = try await client.callTool("unsafe")
            Issue.record("a call whose answer was lost succeeded")
        } catch let error as MCPError {
            #expect(error.code == .streamEnded, "\(error)")
        }
        await client.close()
        let runs = try await peer.record("/reissue/runs")
        #expect(runs == ["tools/list": 2, "safe": 2, "unsafe": 1])
        try await peer.expectNoRepeatedPOST("/reissue/posts")
        await peer.stop()
    }

    /// `close()` ends the session with a DELETE naming it; a session the server dropped (404)
    /// is forgotten, so nothing is deleted for it.
    @Test("close() deletes the session; a session dropped by a 404 is not deleted")
    func closeDeletesTheSession() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        _ = try await Self.call(peer, "asks3")
        #expect(try await peer.record("/asks3/deletes") == ["s1"])
        Self.expectFailure(try await Self.call(peer, "gone"), .sessionExpired)
        #expect(try await peer.record("/gone/deletes") == [])
        await peer.stop()
    }

    @Test("keep-alive comments hold an idle request open past the idle timeout")
    func keepAlive() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let outcome = try await Self.call(peer, "keepalive") { $0.transport.idleTimeout = .seconds(2) }
        #expect((try? outcome.get())?.text == "ok")
        await peer.stop()
    }

    @Test("a tool whose answer starts after the connect timeout is bounded by the request timeout instead", arguments: ["late", "latesse"])
    func lateAnswer(_ name: String) async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        // The answer's head comes 3 s after the POST, twice the connect timeout.
        let outcome = try await Self.call(peer, name) { $0.transport.connectTimeout = .milliseconds(1500) }
        #expect((try? outcome.get())?.text == "ok", "\(outcome)")
        await peer.stop()
    }

    @Test("a 401 asks the headers provider again (credentialsRejected) and the request goes once with the new token")
    func credentialRefresh() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        let rejections = Counter()
        let outcome = try await Self.call(peer, "auth") { c in
            c.transport.headersProvider = { context in
                if context.credentialsRejected { rejections.increment() }
                return ["Authorization": context.credentialsRejected ? "Bearer good" : "Bearer stale"]
            }
        }
        #expect((try? outcome.get())?.text == "ok")
        #expect(rejections.value > 0)
        await peer.stop()
    }

    @Test("negotiation falls back to initialize when the server refuses 2026-07-28")
    func fallback() async throws {
        let peer = try await MCPPeer.hostile()
        defer { peer.peer.terminate() }
        var revision: MCPRevision?
        let outcome = try await Self.call(peer, "legacyonly") { $0.revision = .negotiate }
        #expect((try? outcome.get())?.text == "ok")
        let client = MCPClient(url: peer.url("/legacyonly/mcp"))
        revision = try await client.connect().revision
        #expect(revision == .v2025_11_25)
        await client.close()
        await peer.stop()
    }
}
