#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

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

    /// The close code of an end without the server's close frame: 1006 for WebSocket (RFC 6455
    /// §7.1.5), none for SSE, which never reports a WebSocket code.
    var abnormalCloseCode: UInt16? { kind == .sse ? nil : 1006 }
}
#endif
