#if os(Linux)
import CCurl
import Foundation
import Realtime
@_spi(Transport) import RealtimeCore
import RealtimeIO
import RealtimeTesting
import RealtimeSSE
import RealtimeTestSupport
import RealtimeWebSocket
import Testing

/// The embedded environment of the conformance suite: the production transport core
/// (``SSETransportCore`` or `WebSocketTransportCore`) on a ``ManualLoop``, with a peer that
/// plays each ``PeerScenario`` by feeding an ``EmbeddedByteStream`` (a 101 and frames) or by
/// calling the callbacks of a ``ScriptedCurl`` (a head, body chunks, the completion).
///
/// Time moves only in ``pass(_:)``. Threading: driven by one test; the loop's thread is the
/// caller's while the rig runs it.
final class EmbeddedRig: ConformanceRig, @unchecked Sendable {
    let kind: TransportKind
    var environment: ConformanceEnvironment { .embedded }
    let loop = ManualLoop()
    private(set) var scenario = PeerScenario.held(0)
    /// The peer of the latest attempt (one per stream or transfer the transport opened).
    private(set) var webSocketPeer: EmbeddedWebSocketPeer?
    private(set) var ssePeer: EmbeddedSSEPeer?
    private(set) var attempts = 0

    init(_ kind: TransportKind) {
        self.kind = kind
    }

    func url(_ scenario: PeerScenario) -> URL {
        URL(string: kind == .sse ? "http://peer.test/sse" : "ws://peer.test/ws")!
    }

    func make(_ scenario: PeerScenario, _ configure: (inout TransportRequest) -> Void) -> any Transport {
        self.scenario = scenario
        var request = TransportRequest(url: url(scenario))
        request.connectTimeout = .seconds(60)
        request.idleTimeout = nil
        configure(&request)
        let loop = self.loop
        switch kind {
        case .sse:
            var options = SSEOptions()
            options.proxy = .none
            return SSETransportCore(request: request, options: options, loop: loop) { [self] _, _, _ in
                let curl = ScriptedCurl()
                attempts += 1
                ssePeer = EmbeddedSSEPeer(curl: curl, loop: loop, scenario: scenario)
                return curl
            }
        case .webSocket:
            var options = WebSocketOptions()
            options.heartbeat = .disabled
            options.compression = .disabled
            options.proxy = .none
            options.closeTimeout = TransportFixture.closeTimeout
            return WebSocketTransportCore(request: request, options: options, loop: loop, random: SeededGenerator(seed: 7)) { [self] chunk in
                let stream = EmbeddedByteStream(loop: loop, readChunkSize: chunk)
                attempts += 1
                webSocketPeer = EmbeddedWebSocketPeer(stream: stream, scenario: scenario)
                return stream
            }
        }
    }

    func next(_ events: ConformanceEvents) async -> TransportEvent? {
        for _ in 0..<2 {
            if let event = events.stream.poll() {
                loop.run()
                return event
            }
            settle()
        }
        return nil
    }

    func pass(_ duration: Duration) {
        loop.advanceTime(by: duration)
        settle()
    }

    /// Runs the loop and the peer in turn until neither has anything left to do now.
    func settle() {
        for _ in 0..<100_000 {
            loop.run()
            let progressed = webSocketPeer?.step() ?? ssePeer?.step() ?? false
            if !progressed, loop.pendingTaskCount == 0 { return }
        }
        Issue.record("the embedded peer and transport never settled")
    }

    func reach(_ what: String, _ condition: @escaping @Sendable () -> Bool) async throws {
        settle()
        #expect(condition(), "not reached: \(what)")
    }

    var requestCount: Int { webSocketPeer?.requestCount ?? ssePeer?.requestCount ?? 0 }

    /// Whether the transport stopped taking bytes from the peer (the stream's reads paused,
    /// or curl's transfer paused by the write callback).
    var readingPaused: Bool { webSocketPeer?.stream.readsPaused ?? ssePeer?.paused ?? false }

    func expectReleased(sourceLocation: SourceLocation) async {
        settle()
        if let webSocketPeer {
            #expect(webSocketPeer.stream.phase == .closed, "the stream is still open", sourceLocation: sourceLocation)
        }
        if let ssePeer {
            #expect(ssePeer.curl.ended, "the transfer was not freed", sourceLocation: sourceLocation)
        }
        #expect(loop.pendingTimerCount == 0, "a timer outlived the attempt", sourceLocation: sourceLocation)
    }

    /// Runs what the test left queued (a close from another thread) and lets every timer
    /// still armed fire, so that no attempt outlives the test holding its loop (and the loop
    /// its timers): nothing may be left armed then.
    func stop() {
        settle()
        if loop.pendingTimerCount > 0 { pass(.seconds(600)) }
        #expect(loop.pendingTimerCount == 0, "a timer outlived the test's attempts")
        // A transport released after this (its deinit queues its cancellation) must not keep
        // the loop alive in a cycle.
        loop.shutdown()
    }
}
#endif
