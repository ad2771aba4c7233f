#if os(Linux)
import Foundation
@testable import Realtime
import RealtimeLLM
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `Configuration.openAIRealtime` over the production WebSocket connection on the embedded
/// stack, the test playing the Realtime API's side of the session: what its documentation
/// promises about the handshake (the outbox waits for `session.updated`, the two handshake
/// events are not delivered, an `error` or silence fails it on the loop's clock), the upgrade
/// request's headers, no reconnect by default, and each new session configured the same way
/// when reconnecting is asked for. (The same preset against a server whose every event the
/// `openai` SDK's models check: `OpenAIRealtimeTests`.)
@Suite(.timeLimit(.minutes(1))) struct EmbeddedOpenAIRealtimeTests {
    static let url = "ws://realtime.test/v1/realtime?model=gpt-realtime"
    static let session = #"{"type":"realtime","instructions":"Shout."}"#
    static let created = #"{"type":"session.created","event_id":"event_1","session":{"type":"realtime","id":"sess_1"}}"#
    static let updated = #"{"type":"session.updated","event_id":"event_2","session":{"type":"realtime","id":"sess_1","instructions":"Shout."}}"#

    static func client(
        session: String? = Self.session, beta: Bool = false, configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> EmbeddedClient {
        try EmbeddedClient(Self.url) { c in
            c = try! .openAIRealtime(bearerToken: "sk-test-secret", session: session.map { Array($0.utf8) }, beta: beta)
            c.networkMonitor = nil
            c.heartbeat = .disabled
            c.backoff = .exponential(jitter: .none)
            c.webSocket.compression = .disabled
            c.sendPolicy = .queue()
            configure(&c)
        }
    }

    static func text(_ message: OutboundMessage) -> String? {
        if case .text(let text) = message { return text }
        return nil
    }

    /// A reply of one text delta, then its end.
    static func reply(_ text: String, on server: EmbeddedWebSocketServer) {
        server.sendText(#"{"type":"response.output_text.delta","event_id":"event_3","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"delta":\#(JSONString.quoted(text))}"#)
        server.sendText(#"{"type":"response.done","event_id":"event_4","response":{"id":"resp_1","object":"realtime.response","status":"completed","status_details":null,"output":[]}}"#)
    }

    /// A message queued while connecting goes out after `session.update` was answered, not
    /// before: the conversation item reaches a configured session. The handshake's events are
    /// not delivered; the reply after them is.
    @Test func theOutboxWaitsForSessionUpdatedAndTheHandshakeEventsAreNotDelivered() async throws {
        let t = try Self.client()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        let queued = await EmbeddedClientSendTests.sendInOrder(t.client, ["queued"])
        server.accept()
        t.run()
        #expect(server.texts.isEmpty, "nothing before session.created")
        server.sendText(Self.created)
        await EmbeddedClientOpenHookTests.read(1, on: server, t)
        #expect(server.texts == [#"{"type":"session.update","session":\#(Self.session)}"#])
        t.run()
        #expect(server.texts.count == 1 && rec.events.isEmpty && !t.client.isConnected, "not ready before session.updated")
        server.sendText(Self.updated)
        _ = try await queued[0].value.get()
        await EmbeddedClientOpenHookTests.read(2, on: server, t)
        #expect(server.texts.last == "queued")
        Self.reply("HI", on: server)
        await rec.waitFor(3)
        #expect(rec.summary.hasPrefix("open(1) event("), "\(rec.summary)")
        let delivered = rec.events.compactMap { event -> String? in
            if case .event(let message) = event { return OpenAIRealtimeEvent.type(of: message) }
            return nil
        }
        #expect(delivered == ["response.output_text.delta", "response.done"])
    }

    /// The upgrade request carries the bearer token (and, for the beta interface, the beta
    /// header); neither the log nor an error shows the token.
    @Test(arguments: [false, true]) func theUpgradeCarriesTheTokenWhichNoLogShows(beta: Bool) async throws {
        let logs = LogCapture()
        let t = try Self.client(beta: beta) {
            $0.logHandler = logs
            $0.logLevel = .trace
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.acceptTCP()
        let request = try #require(server.upgradeRequest)
        #expect(request.contains("\r\nAuthorization: Bearer sk-test-secret\r\n"))
        #expect(request.contains("\r\nOpenAI-Beta: realtime=v1\r\n") == beta)
        server.feed(Array("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        server.eof()
        _ = await t.pumping { await rec.waitFor(1) }
        let error = try #require(rec.events.at(0)?.errorEvent?.error)
        #expect(error.code == .unauthorized)
        #expect(!"\(error) \(rec.summary)".contains("sk-test-secret"))
        #expect(!logs.lines.isEmpty && !logs.lines.joined().contains("sk-test-secret"))
    }

    /// An `error` event in place of `session.created` fails the handshake: `open_hook_failed`
    /// with the server's error beneath it, no `.open`, no retry, and the queued message is not
    /// sent to a session that was never configured.
    @Test func anErrorInPlaceOfSessionCreatedFailsTheHandshakeWithoutARetry() async throws {
        let t = try Self.client()
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        let queued = await EmbeddedClientSendTests.sendInOrder(t.client, ["queued"])
        server.accept()
        server.sendText(#"{"type":"error","event_id":"event_1","error":{"type":"invalid_request_error","code":"session_expired","message":"Your session hit the maximum duration."}}"#)
        await EmbeddedClientOpenHookTests.closedByTheClient(server, t)
        await t.pumping { await rec.waitUntilFinished() }
        #expect(rec.summary == "error(open_hook_failed,stop)", "\(rec.summary)")
        let error = try #require(rec.events.at(0)?.errorEvent?.error)
        #expect(error.underlying?.code == .streamError)
        #expect(error.underlying?.detail == "openai-realtime session_expired")
        #expect(error.underlying?.bodyExcerpt == "Your session hit the maximum duration.")
        #expect(server.texts.isEmpty, "nothing reached the session that was never configured")
        let result = await queued[0].value
        #expect(throws: RealtimeError.self) { try result.get() }
        #expect(t.connectionCount == 1)
    }

    /// A server that accepts the upgrade and never says `session.created` fails the handshake
    /// when `onOpenTimeout` (10 s in the preset) runs out on the loop's clock, not before.
    @Test func silenceAfterTheUpgradeFailsTheHandshakeAtTenSeconds() async throws {
        let t = try Self.client()
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        await t.loop.waitForTimer(dueAt: t.loop.now.advanced(by: .seconds(10)))
        t.advance(by: .milliseconds(9_999))
        #expect(!server.isClosed && rec.events.isEmpty, "not before the timeout")
        t.advance(by: .milliseconds(1))
        await EmbeddedClientOpenHookTests.closedByTheClient(server, t)
        await t.pumping { await rec.waitUntilFinished() }
        #expect(rec.summary == "error(open_hook_failed,stop)", "\(rec.summary)")
        #expect(rec.events.at(0)?.errorEvent?.error.detail?.contains("did not finish within 10") == true)
    }

    /// With `reconnect` set, each new connection is a new session, configured by the same
    /// handshake before anything queued during the outage goes out.
    @Test func withReconnectEachNewSessionIsConfiguredBeforeTheOutbox() async throws {
        let t = try Self.client { $0.reconnect = .default }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        for attempt in 1...2 {
            let server = try await t.webSocketAttempt(attempt)
            let queued = await EmbeddedClientSendTests.sendInOrder(t.client, ["queued-\(attempt)"])
            server.accept()
            server.sendText(Self.created)
            await EmbeddedClientOpenHookTests.read(1, on: server, t)
            server.sendText(Self.updated)
            _ = try await queued[0].value.get()
            await EmbeddedClientOpenHookTests.read(2, on: server, t)
            #expect(server.texts == [#"{"type":"session.update","session":\#(Self.session)}"#, "queued-\(attempt)"])
            await rec.waitFor(attempt == 1 ? 1 : 4)
            guard attempt == 1 else { break }
            server.reset()
            await t.waitOutTheBackoff()
        }
        #expect(rec.summary == "open(1) error(network,retry) closed(reconnect) open(2)", "\(rec.summary)")
    }

    /// An event that comes during the handshake and is not its own (the beta interface's
    /// `conversation.created`, rate limits) is kept for the consumer, in order, after `.open`.
    @Test func otherEventsDuringTheHandshakeReachTheConsumerInOrder() async throws {
        let t = try Self.client(beta: true)
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        server.sendText(#"{"type":"conversation.created","event_id":"event_0","conversation":{"id":"conv_1"}}"#)
        server.sendText(Self.created)
        await EmbeddedClientOpenHookTests.read(1, on: server, t)
        server.sendText(#"{"type":"rate_limits.updated","event_id":"event_5","rate_limits":[]}"#)
        server.sendText(Self.updated)
        Self.reply("HI", on: server)
        await rec.waitFor(5)
        let delivered = rec.events.compactMap { event -> String? in
            if case .event(let message) = event { return OpenAIRealtimeEvent.type(of: message) }
            return nil
        }
        #expect(rec.events.first?.short == "open(1)")
        #expect(delivered == ["conversation.created", "rate_limits.updated", "response.output_text.delta", "response.done"])
    }

    /// Without `session`, the handshake only waits for `session.created`: no update is sent.
    @Test func withoutASessionOnlySessionCreatedIsAwaited() async throws {
        let t = try Self.client(session: nil)
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        let queued = await EmbeddedClientSendTests.sendInOrder(t.client, ["queued"])
        server.accept()
        server.sendText(Self.created)
        _ = try await queued[0].value.get()
        await EmbeddedClientOpenHookTests.read(1, on: server, t)
        #expect(server.texts == ["queued"])
        await rec.waitFor(1)
        #expect(rec.summary == "open(1)")
    }
}
#endif
