#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// The loopback environment: the test server plays each scenario.
extension TransportFixture: ConformanceRig {
    var environment: ConformanceEnvironment { .loopback }

    func url(_ scenario: PeerScenario) -> URL {
        switch scenario {
        case .finite(let count, let size): finite(count, size: size)
        case .held(let count): held(count)
        case .deaf: deaf
        case .stalled: stalled
        case .silent: silent
        case .cut(let whole, let reset): cutMidMessage(after: whole, reset: reset)
        case .refused(let status): refused(status)
        case .authorized(let token): authorized(token)
        case .unreachable, .connectionRefused: preconditionFailure("loopback plays \(scenario) with a listener of its own")
        }
    }

    func make(_ scenario: PeerScenario, _ configure: (inout TransportRequest) -> Void) -> any Transport {
        make(url(scenario), configure)
    }

    func next(_ events: ConformanceEvents) async -> TransportEvent? { await events.iterator.next() }
    func pass(_ duration: Duration) {}
    func settle() {}
    func reach(_ what: String, _ condition: @escaping @Sendable () -> Bool) async throws {
        try await bounded(what, seconds: 30, condition)
    }
    var requestCount: Int { server.requests.count }

    func expectReleased(sourceLocation: SourceLocation) async {
        await eventually("the server to see the connection close", sourceLocation: sourceLocation) {
            server.statistics.activeConnections == 0
        }
        await eventually("our socket to be closed", sourceLocation: sourceLocation) {
            ProcessResources.tcpSocketDescriptors(toPort: server.port) == 0
        }
    }

    func stop() { server.stop() }
}
#endif
