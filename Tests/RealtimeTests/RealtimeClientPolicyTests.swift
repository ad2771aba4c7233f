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
}
