import Foundation
@testable import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// `Configuration.resume`: a Responses-style plan (used on the embedded stack by
/// `EmbeddedClientResumePlanTests`), and conflicting settings refused before any I/O.
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
