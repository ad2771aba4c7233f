#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeMCP
import RealtimeTesting
import RealtimeTestSupport
import Testing

/// Servers that break Streamable HTTP, played on the embedded stack (``EmbeddedMCPServer``):
/// each misbehaviour gives a clear typed error, and no request is ever POSTed twice. Every
/// request the client makes is taken in order, so "nothing more was sent" is a count.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedMCPHostileTests {
    typealias Request = EmbeddedMCPServer.Request

    /// A `tools/call` answer that breaks the protocol, and the error it must give.
    enum BrokenAnswer: String, CaseIterable, Sendable {
        case plainText, batch, foreignID, earlyEnd, oversize, invalidUTF8

        var code: MCPError.Code {
            switch self {
            case .plainText, .batch: .invalidResponse
            case .foreignID: .unknownResponseID
            case .earlyEnd: .streamEnded
            case .oversize: .transport
            case .invalidUTF8: .invalidResponse
            }
        }

        /// The transport's error under the MCP one, where the case is about it.
        var underlying: RealtimeError.Code? {
            switch self {
            case .plainText: .invalidContentType
            case .oversize: .messageTooLarge
            case .invalidUTF8: .invalidUTF8
            default: nil
            }
        }

        func answer(_ request: Request) {
            switch self {
            case .plainText:
                request.server.respond(status: 200, headers: [("Content-Type", "text/plain")])
                request.server.send("hello")
                request.server.finish()
            case .batch:
                request.openStream()
                request.event([request.result(.toolText("ok"))])
            case .foreignID:
                request.openStream()
                request.event(["jsonrpc": "2.0", "id": 999, "result": JSONValue.toolText("ok")])
            case .earlyEnd:
                // A notification, then the end: no answer and no event id to resume from.
                request.openStream()
                request.event(Self.progress(request, 1))
                request.server.finish()
            case .oversize:
                request.json(request.result(.toolText(String(repeating: "x", count: 2 << 20))))
            case .invalidUTF8:
                request.server.respond(status: 200, headers: [("Content-Type", "application/json")])
                // "café" in Latin-1: the 0xE9 alone is not UTF-8.
                let halves = request.result(.toolText("caf-e-acute")).jsonString.components(separatedBy: "-e-acute")
                request.server.send(Array(halves[0].utf8) + [0xE9] + Array(halves[1].utf8))
                request.server.finish()
            }
        }

        static func progress(_ request: Request, _ n: Double) -> JSONValue {
            let token = request.message?["params"]?["_meta"]?["progressToken"] ?? request.id ?? .null
            return ["jsonrpc": "2.0", "method": "notifications/progress", "params": ["progressToken": token, "progress": .number(n)]]
        }
    }

    /// Waits until the client took every chunk sent on `request` (a cut drops what it has not).
    static func deliver(_ request: Request, _ mcp: EmbeddedMCPServer) async {
        await mcp.loop.run(until: { request.server.pump() })
    }


    /// Each broken answer to a tool call fails the call with its typed error; the call is
    /// sent once, and `close()` still deletes the session.
    @Test(arguments: BrokenAnswer.allCases) func aBrokenAnswerFailsTheCallWithItsTypedError(_ broken: BrokenAnswer) async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, transport: { $0.maxMessageBytes = 1 << 20 })
        let call = Task { try await client.callTool("t") }
        let request = try await mcp.next()
        #expect(request.rpcMethod == "tools/call")
        broken.answer(request)
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == broken.code, "\(String(describing: error))")
        if let underlying = broken.underlying { #expect(error?.underlying?.code == underlying, "\(String(describing: error))") }
        #expect(mcp.requestCount == 4, "the call is not sent again")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A 404 for the session fails the call with `session_expired`; the session the server
    /// dropped is forgotten, so `close()` deletes nothing.
    @Test func aSessionTheServerDroppedFailsTheCallAndIsNotDeleted() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        let call = Task { try await client.callTool("t") }
        try await mcp.next().status(404)
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .sessionExpired && error?.status == 404)
        await client.close()
        #expect(mcp.requestCount == 4, "no DELETE for a session the server dropped")
    }

    /// Progress every 50 ms does not hold a request past its timeout: it fails with `timeout`
    /// at its deadline, and its stream is closed rather than read on.
    @Test func progressDoesNotHoldARequestPastItsTimeout() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, client: { $0.requestTimeout = .seconds(5) })
        let deadline = mcp.loop.now.advanced(by: .seconds(5))
        let call = Task { try await client.callTool("t") }
        let request = try await mcp.next()
        request.openStream()
        await mcp.loop.waitForTimer(dueAt: deadline)
        var n = 0.0
        while mcp.loop.now < deadline.advanced(by: .milliseconds(-50)) {
            n += 1
            request.event(BrokenAnswer.progress(request, n))
            mcp.loop.advanceTime(by: .milliseconds(50))
        }
        #expect(!request.server.ended, "still open 50 ms before the deadline, after \(Int(n)) progress events")
        mcp.loop.advanceTime(to: deadline)
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .timeout)
        let cancelled = try await mcp.next()
        #expect(cancelled.rpcMethod == "notifications/cancelled")
        cancelled.accepted()
        await mcp.waitUntilEnded(request)
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// An `initialize` answered with HTML fails `connect()` with `invalid_response`, and leaves
    /// no half-made session: requests and notifications fail with `not_connected`, unsent.
    @Test func afterAFailedConnectRequestsFailWithNotConnectedAndAreNotSent() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client()
        let connecting = Task { try await client.connect() }
        let initialize = try await mcp.next()
        initialize.server.respond(status: 200, headers: [("Content-Type", "text/html")])
        initialize.server.send("<html>not MCP</html>")
        initialize.server.finish()
        let error = await #expect(throws: MCPError.self) { try await connecting.value }
        #expect(error?.code == .invalidResponse)
        let call = await #expect(throws: MCPError.self) { try await client.callTool("anything") }
        #expect(call?.code == .notConnected)
        let notification = await #expect(throws: MCPError.self) { try await client.notify("notifications/roots/list_changed") }
        #expect(notification?.code == .notConnected)
        await client.close()
        #expect(mcp.requestCount == 1)
    }

    /// A session id with a character that is not visible ASCII fails `initialize` with
    /// `invalid_response` naming the header, and is never sent back.
    @Test func aSessionIDThatIsNotVisibleASCIIFailsTheInitialize() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client()
        let connecting = Task { try await client.connect() }
        let initialize = try await mcp.next()
        initialize.json(
            initialize.result(["protocolVersion": "2025-11-25", "capabilities": [:], "serverInfo": ["name": "x", "version": "1"]]),
            headers: [("Mcp-Session-Id", "bad id")])
        let error = await #expect(throws: MCPError.self) { try await connecting.value }
        #expect(error?.code == .invalidResponse)
        #expect(error?.detail?.contains("Mcp-Session-Id") == true, "\(String(describing: error))")
        await client.close()
        #expect(mcp.requestCount == 1)
    }

    /// An HTTP+SSE endpoint on another origin is refused before anything is POSTed there:
    /// the request headers, credentials included, would go with it.
    @Test func anHTTPSSEEndpointOnAnotherOriginIsRefusedBeforeAnyPOST() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(
            transport: { $0.headers.add(name: "Authorization", value: "Bearer secret") },
            client: { $0.revision = .fixed(.v2024_11_05) })
        let connecting = Task { try await client.connect() }
        let stream = try await mcp.next()
        #expect(stream.method == "GET")
        stream.openStream()
        stream.server.event("http://localhost:1/evil/mcp", type: "endpoint")
        let error = await #expect(throws: MCPError.self) { try await connecting.value }
        #expect(error?.code == .invalidResponse)
        #expect(error?.description.contains("another origin") == true, "\(String(describing: error))")
        #expect(error.map { !"\($0)".contains("secret") } == true)
        await mcp.waitUntilEnded(stream)
        await client.close()
        #expect(mcp.requestCount == 1, "no POST")
    }

    /// A resumption whose stream sends again the events already delivered (ids 1 and 2, then
    /// 3 and the answer): each message reaches the caller once.
    @Test func eventsSentAgainOnAResumptionAreDeliveredOnce() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, transport: { $0.backoff = .constant(.seconds(5)) })
        let seen = LockedValue<[Double]>([])
        let call = Task { try await client.callTool("t") { progress in seen.withLock { $0.append(progress.progress) } } }
        let post = try await mcp.next()
        post.openStream()
        post.server.event(BrokenAnswer.progress(post, 1).jsonString, id: "1", retry: 300)
        post.event(BrokenAnswer.progress(post, 2), id: "2")
        await Self.deliver(post, mcp)  // both events taken before the cut
        post.server.reset()
        await mcp.loop.waitForTimer(dueAt: mcp.loop.now.advanced(by: .milliseconds(300)))  // the server's retry, not the 5 s backoff
        mcp.loop.advanceTime(by: .milliseconds(300))
        let resume = try await mcp.next()
        #expect(resume.method == "GET" && resume.server.request.lastEventID == "2")
        resume.openStream()
        for n in 1...3 { resume.event(BrokenAnswer.progress(post, Double(n)), id: "\(n)") }
        resume.event(post.result(.toolText("resumed")), id: "4")
        #expect(try await call.value.text == "resumed")
        #expect(seen.withLock { $0 } == [1, 2, 3])
        #expect(mcp.requestCount == 5, "one POST, one GET")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A stream cut again after every resumption is resumed exactly `maxResumeAttempts`
    /// times, each GET from the last event id, then the call fails with `stream_ended`; 0
    /// never resumes. Each stream's progress arrives once.
    @Test(arguments: [0, 1, 3]) func aStreamCutAfterEveryResumptionIsResumedItsLimitThenFails(limit: Int) async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, transport: { $0.maxResumeAttempts = limit; $0.backoff = .constant(.seconds(5)) })
        let seen = LockedValue<[Double]>([])
        let call = Task { try await client.callTool("t") { progress in seen.withLock { $0.append(progress.progress) } } }
        let post = try await mcp.next()
        post.openStream()
        post.server.event(BrokenAnswer.progress(post, 1).jsonString, id: "1", retry: 200)
        await Self.deliver(post, mcp)
        post.server.reset()
        for n in stride(from: 1, through: limit, by: 1) {
            await mcp.loop.waitForTimer(dueAt: mcp.loop.now.advanced(by: .milliseconds(200)))  // the server's retry, not the backoff
            mcp.loop.advanceTime(by: .milliseconds(200))
            let resume = try await mcp.next()
            #expect(resume.method == "GET" && resume.server.request.lastEventID == "\(n)")
            resume.openStream()
            resume.event(BrokenAnswer.progress(post, Double(n + 1)), id: "\(n + 1)")
            await Self.deliver(resume, mcp)
            resume.server.reset()
        }
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .streamEnded)
        #expect(seen.withLock { $0 } == (0...limit).map { Double($0 + 1) })
        #expect(mcp.requestCount == 4 + limit, "one GET per resumption, the POST once")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// With an idle timeout, SSE comments count as bytes: 4 s of keep-alives 100 ms apart hold
    /// a request open against a 2 s idle timeout, while 2 s of silence ends a stream.
    @Test func keepAliveCommentsHoldARequestOpenPastTheIdleTimeout() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, transport: { $0.idleTimeout = .seconds(2); $0.maxResumeAttempts = 0 })
        let call = Task { try await client.callTool("t") }
        let post = try await mcp.next()
        post.openStream()
        for _ in 0..<40 {
            post.server.send(": keep-alive\n\n")
            mcp.loop.advanceTime(by: .milliseconds(100))
        }
        post.event(post.result(.toolText("ok")))
        #expect(try await call.value.text == "ok")
        let silent = Task { try await client.callTool("t") }
        let quiet = try await mcp.next()
        quiet.openStream()
        mcp.loop.advanceTime(by: .seconds(2) - .milliseconds(1))
        #expect(!quiet.server.ended)
        mcp.loop.advanceTime(by: .milliseconds(1))
        await mcp.waitUntilEnded(quiet)
        let error = await #expect(throws: MCPError.self) { try await silent.value }
        #expect(error?.code == .streamEnded, "\(String(describing: error))")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A server request with no handler is answered -32601, one whose handler throws
    /// something other than an rpc error -32603; the call's own answer comes through.
    @Test func serverRequestsWithoutAUsableHandlerGetTheirJSONRPCErrors() async throws {
        struct Boom: Error {}
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp)
        await client.setRequestHandler("sampling/createMessage") { _ in throw Boom() }
        let call = Task { try await client.callTool("t") }
        let post = try await mcp.next()
        post.openStream()
        var codes: [String: JSONValue] = [:]
        for (id, method) in [("ask1", "elicitation/create"), ("ask2", "sampling/createMessage")] {
            post.event(["jsonrpc": "2.0", "id": .string(id), "method": .string(method), "params": [:]])
            let answer = try await mcp.next()
            #expect(answer.rpcMethod == nil && answer.message?["result"] == nil)
            codes[answer.id?.stringValue ?? "?"] = answer.message?["error"]?["code"]
            answer.accepted()
        }
        #expect(codes == ["ask1": -32601, "ask2": -32603])
        post.event(post.result(.toolText("ok")))
        #expect(try await call.value.text == "ok")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// 20 server requests at once against a limit of 4: four handlers run, the other 16 are
    /// refused with -32000 while they do, each refusal sent before the next request is read;
    /// the handlers' answers follow once they return, then the call's answer comes through.
    @Test func aFloodOfServerRequestsRunsAtMostTheLimitAndRefusesTheRest() async throws {
        let mcp = EmbeddedMCPServer()
        let client = try await EmbeddedMCPClientTests.connected(mcp, client: { $0.maxConcurrentServerRequests = 4 })
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let (released, release) = AsyncStream<Void>.makeStream()
        let running = LockedValue((now: 0, most: 0))
        await client.setRequestHandler("sampling/createMessage") { _ in
            running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            enter.yield()
            for await _ in released { break }
            running.withLock { $0.now -= 1 }
            return [:]
        }
        let call = Task { try await client.callTool("t") }
        let post = try await mcp.next()
        post.openStream()
        for n in 0..<20 { post.event(["jsonrpc": "2.0", "id": .string("ask\(n)"), "method": "sampling/createMessage", "params": [:]]) }
        var refused: [String] = []
        for _ in 0..<16 {
            let refusal = try await mcp.next()
            #expect(refusal.message?["error"]?["code"] == -32000)
            refused.append(refusal.id?.stringValue ?? "?")
            refusal.accepted()
        }
        #expect(refused == (4..<20).map { "ask\($0)" }, "the requests past the limit, in order")
        var starts = entered.makeAsyncIterator()
        for _ in 0..<4 { await starts.next() }
        #expect(running.withLock { $0 } == (4, 4))
        release.finish()
        var answered: Set<String> = []
        for _ in 0..<4 {
            let answer = try await mcp.next()
            #expect(answer.message?["result"] == [:])
            answered.insert(answer.id?.stringValue ?? "?")
            answer.accepted()
        }
        #expect(answered == ["ask0", "ask1", "ask2", "ask3"])
        post.event(post.result(.toolText("ok")))
        #expect(try await call.value.text == "ok")
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A 401 asks the headers provider again (`credentialsRejected`), and the request goes
    /// once more with the new token; later requests keep it.
    @Test func a401AsksTheHeadersProviderAgainAndTheRequestGoesOnceWithTheNewToken() async throws {
        let mcp = EmbeddedMCPServer()
        let rejections = LockedValue(0)
        let client = mcp.client(transport: { configuration in
            configuration.headersProvider = { context in
                let rejected = rejections.withLock { count in
                    if context.credentialsRejected { count += 1 }
                    return count
                }
                return ["Authorization": rejected > 0 ? "Bearer good" : "Bearer stale"]
            }
        })
        let connecting = Task { try await client.connect() }
        let refused = try await mcp.next()
        #expect(refused.rpcMethod == "initialize" && refused.headers["Authorization"] == "Bearer stale")
        refused.server.respond(status: 401, headers: [("WWW-Authenticate", "Bearer")])
        refused.server.finish()
        let initialize = try await mcp.next()
        #expect(initialize.rpcMethod == "initialize" && initialize.headers["Authorization"] == "Bearer good")
        initialize.json(
            initialize.result(["protocolVersion": "2025-11-25", "capabilities": [:], "serverInfo": ["name": "x", "version": "1"]]),
            headers: [("Mcp-Session-Id", "s1")])
        let initialized = try await mcp.next()
        #expect(initialized.headers["Authorization"] == "Bearer good")
        initialized.accepted()
        try await mcp.next().status(405)
        _ = try await connecting.value
        #expect(rejections.withLock { $0 } == 1)
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// Negotiation asks for 2026-07-28 first; a server that refuses it (400, no body) is
    /// spoken to with `initialize` on the newest session revision instead.
    @Test func negotiationFallsBackToInitializeWhenTheServerRefusesTheNewestRevision() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.revision = .negotiate })
        let connecting = Task { try await client.connect() }
        let discover = try await mcp.next()
        #expect(discover.rpcMethod == "server/discover" && discover.headers["MCP-Protocol-Version"] == "2026-07-28")
        discover.status(400)
        try await mcp.answerHandshake(session: "s1")
        #expect(try await connecting.value.revision == .v2025_11_25)
        try await EmbeddedMCPClientTests.close(client, mcp)
    }

    /// A 2026-07-28 server that asks for input on every round: each round runs the handler and
    /// sends the call again with the round's `requestState` untouched; past `maxInputRounds`
    /// the call fails with `invalid_response`.
    @Test func anInputRequiredLoopEndsAfterMaxInputRounds() async throws {
        let mcp = EmbeddedMCPServer()
        let client = mcp.client(client: { $0.revision = .fixed(.v2026_07_28); $0.maxInputRounds = 3 })
        let connecting = Task { try await client.connect() }
        let discover = try await mcp.next()
        discover.json(discover.result(["supportedVersions": ["2026-07-28"], "capabilities": ["tools": [:]]]))
        _ = try await connecting.value
        await client.setRequestHandler("elicitation/create") { _ in ["action": "accept", "content": [:]] }
        let call = Task { try await client.callTool("t") }
        let listing = try await mcp.next()
        listing.json(listing.result(["tools": [["name": "t", "inputSchema": ["type": "object"]]]]))
        var states: [JSONValue] = []
        for round in 1...4 {
            let request = try await mcp.next()
            #expect(request.rpcMethod == "tools/call")
            let params = request.message?["params"]
            states.append(params?["requestState"] ?? .null)
            if round > 1 { #expect(params?["inputResponses"]?["again"]?["action"] == "accept") }
            let ask: JSONValue = ["method": "elicitation/create", "params": ["message": "again?", "requestedSchema": ["type": "object", "properties": [:]]]]
            request.json(request.result(["resultType": "input_required", "inputRequests": ["again": ask], "requestState": .string("state-\(round)")]))
        }
        let error = await #expect(throws: MCPError.self) { try await call.value }
        #expect(error?.code == .invalidResponse)
        #expect(error?.detail?.contains("more than 3 times") == true, "\(String(describing: error))")
        #expect(states == [.null, "state-1", "state-2", "state-3"], "every requestState went back as sent")
        #expect(mcp.requestCount == 6, "the first call and 3 rounds")
        await client.close()
    }
}
#endif
