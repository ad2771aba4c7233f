import Foundation
import Realtime
import Testing

/// A configuration the client refuses at once, before any I/O. (The policies through the
/// client, each failure as the server gives it, are on the embedded stack:
/// `EmbeddedClientPolicyTests`.)
@Suite struct RealtimeClientPolicyTests {
    @Test(arguments: [0, -1])
    func anEventBufferBelowOneIsRejected(_ capacity: Int) {
        var configuration = RealtimeClient.Configuration()
        configuration.eventBufferCapacity = capacity
        let error = #expect(throws: RealtimeError.self) {
            try RealtimeClient(url: URL(string: "http://example.com/s")!, configuration: configuration)
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test(arguments: [Duration.zero, .milliseconds(99)])
    func backoffBelowTheFloorIsRejected(_ initial: Duration) {
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(initial: initial)
        let error = #expect(throws: RealtimeError.self) {
            try RealtimeClient(url: URL(string: "http://example.com/s")!, configuration: configuration)
        }
        #expect(error?.code == .invalidConfiguration)
    }

    /// Every configuration the Configuration article lists as rejected, each with a detail
    /// that names the setting.
    @Test(arguments: [
        "duplicates: the window must hold at least 1 id",
        "onOpenTimeout must be positive",
        "set messageID or resume.cursor, not both",
        "set resumeURL or resume, not both (the plan's request builds the URL)",
        "resume.maxResumesWithoutProgress must be at least 1",
    ])
    func everyRejectedConfigurationNamesItsSetting(detail: String) {
        var c = RealtimeClient.Configuration()
        switch detail {
        case let d where d.hasPrefix("duplicates"): c.duplicates = .recentIDs(window: 0)
        case let d where d.hasPrefix("onOpenTimeout"): c.onOpenTimeout = .zero
        case let d where d.hasPrefix("set messageID"): c.resume = Self.plan(); c.messageID = { _ in nil }
        case let d where d.hasPrefix("set resumeURL"): c.resume = Self.plan(); c.resumeURL = { url, _ in url }
        default: c.resume = Self.plan(maxResumesWithoutProgress: 0)
        }
        #expect(throws: RealtimeError(.invalidConfiguration, detail: detail)) {
            try RealtimeClient(url: URL(string: "http://example.com/s")!, configuration: c)
        }
    }

    static func plan(maxResumesWithoutProgress: Int = 3) -> RealtimeClient.ResumePlan {
        RealtimeClient.ResumePlan(cursor: { _, _ in nil }, maxResumesWithoutProgress: maxResumesWithoutProgress) { request, _ in request }
    }
}
