#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// Where the conformance suite runs a contract test: against the production transport on
/// the embedded loop (a manual scheduler, an in-memory byte stream or a scripted curl, and a
/// peer the test plays), or on loopback against the in-repo test server.
enum ConformanceEnvironment: String, Sendable, CaseIterable {
    case embedded, loopback
}

/// One row of the suite: an environment and a transport kind.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    let environment: ConformanceEnvironment
    let kind: TransportKind

    /// Every environment × every kind; only one environment when `RT_CONFORMANCE_ENVIRONMENT`
    /// names it (`embedded` or `loopback`).
    static let all: [ConformanceCase] = environments.flatMap { environment in
        TransportFixture.kinds.map { ConformanceCase(environment: environment, kind: $0) }
    }

    private static var environments: [ConformanceEnvironment] {
        let only = ProcessInfo.processInfo.environment["RT_CONFORMANCE_ENVIRONMENT"].flatMap(ConformanceEnvironment.init)
        return only.map { [$0] } ?? ConformanceEnvironment.allCases
    }

    static let loopback = all.filter { $0.environment == .loopback }
    static let embedded = all.filter { $0.environment == .embedded }

    var testDescription: String { "\(environment.rawValue) \(kind)" }

    /// The peer for this row (a new test server on loopback).
    func rig() throws -> any ConformanceRig {
        switch environment {
        case .embedded: EmbeddedRig(kind)
        case .loopback: try TransportFixture(kind)
        }
    }
}

/// What the server (or the embedded peer) does for one attempt.
enum PeerScenario: Sendable, Equatable {
    /// `count` messages, then an orderly end (SSE: the body ends; WebSocket: close 1000).
    case finite(Int, size: Int? = nil)
    /// `count` messages, then the connection stays open; pings and a close are answered.
    case held(Int)
    /// One message, then the peer reads nothing and answers no close frame.
    case deaf
    /// The response head (or the 101) arrives, then nothing, and nothing is read.
    case stalled
    /// The request is read and never answered.
    case silent
    /// `whole` messages of 100 bytes, then the connection drops halfway through the next one.
    case cut(after: Int, reset: Bool)
    /// The request is refused with this status.
    case refused(Int)
    /// 401 unless the request carries `Authorization: Bearer <token>`.
    case authorized(String)
    /// Embedded only: TCP never comes up (loopback: a ``SaturatedListener``).
    case unreachable
    /// Embedded only: the connection is refused (loopback: a ``ClosedPort``).
    case connectionRefused
}

/// A peer the conformance suite speaks to, and how time passes there. The tests are written
/// once against this; the embedded rig moves time only when a test says so (so a deadline is
/// checked to the tick), loopback lets the wall clock run.
protocol ConformanceRig: Sendable {
    var kind: TransportKind { get }
    var environment: ConformanceEnvironment { get }
    /// The URL of a transport for `scenario`.
    func url(_ scenario: PeerScenario) -> URL
    /// A transport whose peer plays `scenario`, not started.
    func make(_ scenario: PeerScenario, _ configure: (inout TransportRequest) -> Void) -> any Transport
    /// The next event, or nil once the attempt ended (embedded: or once neither the peer nor
    /// the transport has anything more to do without time passing).
    func next(_ events: ConformanceEvents) async -> TransportEvent?
    /// Embedded: moves time forward by `duration`; loopback: nothing (the clock runs).
    func pass(_ duration: Duration)
    /// Embedded: lets the peer and the transport do what they can now; loopback: nothing.
    func settle()
    /// Waits until `condition` holds (embedded: it must hold once the rig settled).
    func reach(_ what: String, _ condition: @escaping @Sendable () -> Bool) async throws
    /// The requests the peer saw.
    var requestCount: Int { get }
    /// The peer saw the connection go and no resource of the attempt is left.
    func expectReleased(sourceLocation: SourceLocation) async
    func stop()
}

extension ConformanceRig {
    func make(_ scenario: PeerScenario) -> any Transport { make(scenario) { _ in } }

    /// Starts `transport` and returns its events.
    func start(_ transport: any Transport, capacity: Int = 256) -> ConformanceEvents {
        let events = ConformanceEvents(transport, transport.eventStream(capacity: capacity))
        settle()
        return events
    }

    /// Records the events of a started attempt until it ends.
    func record(_ events: ConformanceEvents) async -> TransportTranscript {
        var transcript = TransportTranscript()
        while let event = await next(events) { transcript.events.append(event) }
        return transcript
    }

    func record(_ transport: any Transport) async -> TransportTranscript {
        await record(start(transport))
    }

    /// Records what remains of an attempt that must end `after` from now and not one tick
    /// sooner. Embedded: time moves to one tick before the deadline (the attempt must still be
    /// alive), then to the deadline; loopback: the rest of the attempt, however long it takes.
    func record(_ events: ConformanceEvents, endingAfter after: Duration,
                sourceLocation: SourceLocation = #_sourceLocation) async -> TransportTranscript {
        var transcript = TransportTranscript()
        if environment == .embedded {
            while let event = await next(events) { transcript.events.append(event) }
            pass(after - .nanoseconds(1))
            while let event = await next(events) { transcript.events.append(event) }
            #expect(transcript.ends.isEmpty, "ended one tick before the deadline: \(transcript.summary)",
                    sourceLocation: sourceLocation)
            pass(.nanoseconds(1))
        }
        while let event = await next(events) { transcript.events.append(event) }
        return transcript
    }

    func expectReleased(sourceLocation: SourceLocation = #_sourceLocation) async {
        await expectReleased(sourceLocation: sourceLocation)
    }

    /// The text of message `index` of ``PeerScenario/finite(_:size:)`` or ``PeerScenario/held(_:)``.
    func text(_ index: Int, size: Int? = nil) -> String {
        let text = kind == .sse ? "event \(index)" : "message \(index)"
        guard let size, text.utf8.count < size else { return text }
        return text + String(repeating: "x", count: size - text.utf8.count)
    }

    /// The status of the response that opens a stream.
    var openStatus: Int { kind == .sse ? 200 : 101 }

    /// The close code of an orderly end (SSE has none).
    var cleanCloseCode: UInt16? { kind == .sse ? nil : 1000 }
}

/// A started attempt's events, read the way the rig's environment reads them; holds the
/// transport (one dropped without `close()` ends its attempt).
final class ConformanceEvents {
    let transport: any Transport
    let stream: TransportEvents
    var iterator: TransportEvents.AsyncIterator

    init(_ transport: any Transport, _ stream: TransportEvents) {
        self.transport = transport
        self.stream = stream
        iterator = stream.makeAsyncIterator()
    }
}

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
