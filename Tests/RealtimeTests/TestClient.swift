import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// A client wired to a mock transport factory, a manual clock and a seeded generator, with
/// jitter off so delays are exact (1 s, 2 s, 4 s, …).
struct TestClient {
    let client: RealtimeClient
    let factory: MockTransportFactory
    let clock: ManualClock

    init(
        _ url: String = "http://127.0.0.1:8080/stream",
        configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws {
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(jitter: .none)
        configure(&configuration)
        let factory = MockTransportFactory()
        let clock = ManualClock()
        self.client = try RealtimeClient(
            url: URL(string: url)!, configuration: configuration, clock: clock,
            random: SeededGenerator(seed: 1), transportFactory: factory.make)
        self.factory = factory
        self.clock = clock
    }

    /// Waits for the reconnect loop to sleep on the clock, then advances it by `d`.
    func advance(by d: Duration) async {
        await eventually("a backoff timer") { clock.sleeperCount == 1 }
        clock.advance(by: d)
    }
}
