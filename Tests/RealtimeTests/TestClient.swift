import Foundation
@_spi(Transport) import Realtime
import RealtimeTestSupport
import Testing

/// A client wired to a mock transport factory, a manual clock and a seeded generator, with
/// jitter off so delays are exact (1 s, 2 s, 4 s, …) and no network monitor.
struct TestClient {
    let client: RealtimeClient
    let factory: MockTransportFactory
    let clock: ManualClock

    init(
        _ url: String = "http://127.0.0.1:8080/stream", clock: ManualClock = ManualClock(),
        factory: MockTransportFactory = MockTransportFactory(),
        configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws {
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(jitter: .none)
        // Scripted transports need no network: the host's interfaces must not matter
        // (tests of reachability set a manual monitor).
        configuration.networkMonitor = nil
        configure(&configuration)
        self.client = try RealtimeClient(
            url: URL(string: url)!, configuration: configuration, clock: clock,
            random: SeededGenerator(seed: 1), transportFactory: factory.make)
        self.factory = factory
        self.clock = clock
    }

    /// Waits for the client to arm its timer (backoff, budget slot), then advances the clock by `d`.
    func advance(by d: Duration) async {
        await clock.waitForSleepers(1)
        clock.advance(by: d)
    }

    /// Waits until the client reports a state satisfying `condition` (through
    /// ``RealtimeClient/stateChanges``; bounded by the suite's time limit).
    @discardableResult
    func waitForState(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (RealtimeClient.State) -> Bool
    ) async -> RealtimeClient.State? {
        for await state in client.stateChanges where condition(state) { return state }
        Issue.record("the client ended without \(what) (now \(client.state))", sourceLocation: sourceLocation)
        return nil
    }
}

extension RealtimeClient.State {
    var isWaitingToRetry: Bool {
        if case .waitingToRetry = self { return true }
        return false
    }
}
