import Foundation
@testable import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// `Configuration.resume` on scripted transports and the manual clock: a POST's reply whose
/// cursor is in the data is resumed by a different request (a GET), every message exactly once,
/// the POST never repeated; `messageID` reads SSE cursors too; conflicting settings are
/// refused before any I/O.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientResumePlanTests {
    static let url = "http://127.0.0.1:8080/v1/responses"

    /// The reply's id comes from its first event, the sequence number from every event:
    /// `"<id> <seq>"`, as a Responses-style plan reads it.
    static let plan = RealtimeClient.ResumePlan(
        cursor: { message, previous in
            guard let text = message.text, let seq = field("seq", text) else { return nil }
            let id = field("id", text) ?? previous?.split(separator: " ").first.map(String.init)
            return id.map { "\($0) \(seq)" }
        },
        request: { request, cursor in
            var get = request
            let parts = cursor.split(separator: " ")
            get.method = "GET"
            get.body = nil
            get.lastEventID = nil
            get.headers.remove(name: "Content-Type")
            get.url = URL(string: "\(url)/\(parts[0])?stream=true&starting_after=\(parts[1])")!
            return get
        })

    static func field(_ name: String, _ text: String) -> String? {
        guard let range = text.range(of: "\"\(name)\":") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "," && $0 != "}" }).trimmingCharacters(in: ["\""])
    }

    static func client() throws -> TestClient {
        try TestClient(url) {
            $0 = .llm(body: Array("{}".utf8), terminator: .matching(delivered: true) { $0.type == "done" })
            $0.backoff = .exponential(jitter: .none)
            $0.networkMonitor = nil
            $0.resume = plan
        }
    }

    static func event(_ type: String, _ json: String) -> TransportEvent {
        .message(.sse(type: type, data: json, id: ""))
    }

    @Test func aCutReplyResumesWithAGetFromItsCursorAndNothingComesTwice() async throws {
        let t = try Self.client()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let post = try #require(await t.factory.transport(0))
        #expect(post.request.method == "POST")
        post.open()
        post.emit(Self.event("created", #"{"id":"r1","seq":0}"#))
        post.emit(Self.event("delta", #"{"seq":1,"d":"a"}"#))
        post.fail(RealtimeError(.network))
        await rec.waitFor("the cut") { $0.closedEvent != nil }
        await t.advance(by: .seconds(1))
        let get = try #require(await t.factory.transport(1))
        #expect(get.request.method == "GET" && get.request.body == nil)
        #expect(get.request.url.absoluteString == "\(Self.url)/r1?stream=true&starting_after=1")
        #expect(get.request.headers["Content-Type"] == nil && get.request.lastEventID == nil)
        get.open()
        get.emit(contentsOf: [Self.event("delta", #"{"seq":2,"d":"b"}"#), Self.event("done", #"{"seq":3}"#)])
        await rec.waitUntilFinished()
        let data = rec.events.compactMap { $0.message?.text }
        #expect(data == [#"{"id":"r1","seq":0}"#, #"{"seq":1,"d":"a"}"#, #"{"seq":2,"d":"b"}"#, #"{"seq":3}"#])
        #expect(rec.events.compactMap { $0.message?.id } == ["r1 0", "r1 1", "r1 2", "r1 3"])
        #expect(t.factory.count == 2, "one POST, one GET")
        #expect(t.client.lastEventID == "r1 3")
    }

    @Test func aReplyCutBeforeItsFirstCursorIsNotRepeated() async throws {
        let t = try Self.client()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let post = try #require(await t.factory.transport(0))
        post.open()
        post.fail(RealtimeError(.network))
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) error(request_not_repeatable,stop) closed(final)")
        #expect(t.factory.count == 1)
    }

    @Test func messageIDReadsTheCursorOfSSEEventsFromTheirData() async throws {
        let t = try TestClient("http://127.0.0.1:8080/feed") {
            $0.messageID = { $0.text.flatMap { Self.field("seq", $0) } }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.emit(Self.event("message", #"{"seq":41}"#))
        first.emit(.message(.sse(type: "message", data: "no cursor", id: "sse-id")))
        first.emit(Self.event("message", #"{"seq":42}"#))
        await rec.waitFor(4)
        #expect(rec.events.compactMap { $0.message?.id } == ["41", "sse-id", "42"], "the SSE id stays where the data has none")
        first.fail(RealtimeError(.network))
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "42")
    }

    @Test func conflictingResumeSettingsAreRefused() {
        for configure in [
            { (c: inout RealtimeClient.Configuration) in
                c.resume = Self.plan
                c.messageID = { $0.id }
            },
            { (c: inout RealtimeClient.Configuration) in
                c.resume = Self.plan
                c.resumeURL = { url, _ in url }
            },
        ] {
            #expect {
                _ = try TestClient(Self.url, configure: configure)
            } throws: { ($0 as? RealtimeError)?.code == .invalidConfiguration }
        }
    }
}

extension ClientEvent {
    var message: Message? {
        if case .event(let m) = self { return m }
        return nil
    }

    var closedEvent: CloseEvent? {
        if case .closed(let c) = self { return c }
        return nil
    }
}
