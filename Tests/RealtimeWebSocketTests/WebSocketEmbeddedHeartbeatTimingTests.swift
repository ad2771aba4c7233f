import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTesting
@testable import RealtimeWebSocket

/// The heartbeat's deadlines as `HeartbeatPolicy` states them, to the nanosecond on the
/// embedded loop: counted from the last inbound byte, whatever kind of frame it was; the
/// answer to a ping keeps the schedule; the idle timeout counts control frames; the
/// responder stays quiet once the closing handshake has begun.
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedHeartbeatTimingTests {
    static let tick = Duration.nanoseconds(1)

    /// Ping frames every 10 s, dead after 2 unanswered.
    static func heartbeat(_ mode: HeartbeatPolicy.Mode) -> WebSocketOptions {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = .ping(every: .seconds(10), missedLimit: 2, mode: mode)
        return options
    }

    static func pings(_ ws: EmbeddedWebSocket) -> Int { ws.clientFrames().filter(\.isPing).count }

    /// Alive until one tick before `time` from now, dead of a missed heartbeat at `time`.
    static func expectDead(_ ws: EmbeddedWebSocket, in time: Duration, sourceLocation: SourceLocation = #_sourceLocation) {
        ws.advance(by: time - tick)
        #expect(ws.ended() == nil, "alive until \(time)", sourceLocation: sourceLocation)
        ws.advance(by: tick)
        #expect(ws.ended()?.error?.code == .heartbeatTimeout, sourceLocation: sourceLocation)
    }

    /// `whenIdle`: pings at I and 2 × I of silence, dead exactly I × (N + 1) after the last
    /// inbound byte, not after the open.
    @Test func whenIdleIsDeadThreeIntervalsAfterTheLastInboundByte() {
        let ws = EmbeddedWebSocket(options: Self.heartbeat(.whenIdle))
        #expect(ws.open() != nil)
        ws.advance(by: .seconds(7))
        ws.serverSends(text: "last words")
        ws.advance(by: .seconds(10) - Self.tick)
        #expect(Self.pings(ws) == 0, "no ping before 10 s of silence")
        ws.advance(by: Self.tick)
        #expect(Self.pings(ws) == 1, "a ping at 10 s of silence")
        ws.advance(by: .seconds(10))
        #expect(Self.pings(ws) == 1, "another at 20 s")
        Self.expectDead(ws, in: .seconds(10))  // 30 s of silence
    }

    /// `whenIdle`: the answer to a ping does not restart the interval; the next ping goes out
    /// I after the previous one, and the peer is dead I × (N + 1) less the round trip after
    /// that answer.
    @Test func theAnswerToAPingKeepsTheSchedule() {
        let ws = EmbeddedWebSocket(options: Self.heartbeat(.whenIdle))
        #expect(ws.open() != nil)
        ws.advance(by: .seconds(10))
        #expect(Self.pings(ws) == 1)
        ws.advance(by: .seconds(2))
        ws.serverSendsPong()  // at 12 s: a 2 s round trip
        ws.advance(by: .seconds(8) - Self.tick)
        #expect(Self.pings(ws) == 0, "not before 20 s")
        ws.advance(by: Self.tick)
        #expect(Self.pings(ws) == 1, "at 20 s: 10 s after the previous ping, not after the pong")
        ws.advance(by: .seconds(10))
        #expect(Self.pings(ws) == 1, "at 30 s")
        Self.expectDead(ws, in: .seconds(10))  // at 40 s: 30 s less the 2 s round trip after the pong
    }

    /// Any inbound traffic proves the peer alive, a server's ping included: a server that
    /// pings more often than I gets pongs and never a ping of ours.
    @Test func aServerThatPingsIsAliveAndNeverPinged() {
        let ws = EmbeddedWebSocket(options: Self.heartbeat(.whenIdle))
        #expect(ws.open() != nil)
        for i in 0..<10 {
            ws.advance(by: .seconds(8))
            ws.serverSendsPing([UInt8(i)])
            #expect(ws.clientFrames() == [.pong([UInt8(i)])], "the pong, no ping of ours")
        }
        #expect(ws.ended() == nil, "80 s, never 10 s of silence")
    }

    /// `fixedInterval`: dead at the (N + 1)-th tick after the last inbound byte, between
    /// I × N and I × (N + 1) after it.
    @Test(arguments: [(9_500, 30_000), (10_500, 40_000)])
    func fixedIntervalIsDeadAtTheThirdTickAfterTheLastByte(lastByteAtMilliseconds: Int, deadAtMilliseconds: Int) {
        let ws = EmbeddedWebSocket(options: Self.heartbeat(.fixedInterval))
        #expect(ws.open() != nil)
        ws.advance(by: .milliseconds(lastByteAtMilliseconds))
        ws.serverSends(text: "last words")
        #expect(ws.events().compactMap(\.text) == ["last words"])
        ws.advance(by: .milliseconds(deadAtMilliseconds - lastByteAtMilliseconds) - Self.tick)
        #expect(ws.ended() == nil, "alive until the third tick")
        ws.advance(by: Self.tick)
        #expect(ws.ended()?.error?.code == .heartbeatTimeout)
    }

    /// WebSocket control frames count as traffic for the idle timeout: a server's ping or an
    /// unsolicited pong (RFC 6455 §5.5.3) restarts the idle period.
    @Test(arguments: [true, false])
    func aControlFrameRestartsTheIdlePeriod(ping: Bool) {
        let ws = EmbeddedWebSocket { $0.idleTimeout = .seconds(60) }
        #expect(ws.open() != nil)
        ws.advance(by: .seconds(59))
        if ping { ws.serverSendsPing() } else { ws.serverSendsPong() }
        ws.advance(by: .seconds(60) - Self.tick)
        #expect(ws.ended() == nil, "the control frame restarted the idle period")
        ws.advance(by: Self.tick)
        #expect(ws.ended()?.error?.code == .idleTimeout)
    }

    /// A consumer that stopped taking events is not silence: while its full buffer keeps the
    /// socket unread, the idle timeout does not end the connection.
    @Test func aPausedConsumerIsNotSilence() {
        let ws = EmbeddedWebSocket {
            $0.idleTimeout = .seconds(60)
            $0.eventBufferCapacity = 4
        }
        #expect(ws.open() != nil)
        var burst: [UInt8] = []
        for i in 0..<20 { burst += ws.serverFrame(text: "m\(i)") }
        ws.stream.feed(burst)
        #expect(ws.stream.readsPaused)
        ws.advance(by: .seconds(600))
        #expect(!ws.stream.closedByOwner, "ten idle timeouts while the consumer was busy")
        var texts: [String] = []
        for _ in 0..<50 { texts += ws.events().compactMap(\.text) }
        #expect(texts == (0..<20).map { "m\($0)" })
        ws.advance(by: .seconds(60) - Self.tick)
        #expect(ws.ended() == nil, "the idle period starts again once the consumer caught up")
        ws.advance(by: Self.tick)
        #expect(ws.ended()?.error?.code == .idleTimeout)
    }

    /// The responder answers a server's application ping at once while open, and not once
    /// the closing handshake has begun (RFC 6455 §5.5.1: no data frame after a close frame).
    @Test func theResponderIsQuietOnceTheCloseFrameIsOut() {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = .responder(deadAfter: nil, answering: .text(ping: "2", pong: "3", answersServerPings: true))
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.serverSends(text: "2")
        #expect(ws.clientFrames().compactMap(\.string) == ["3"], "answered while open")
        ws.close(code: 1000)
        #expect(ws.clientFrames().compactMap(\.closeCode) == [1000])
        ws.serverSends(text: "2")
        #expect(ws.clientFrames().isEmpty, "nothing after our close frame")
        ws.serverSendsClose(code: 1000)
        ws.stream.feedEOF()
        #expect(ws.ended()?.code == 1000)
    }

    /// A nil interval sends no ping and never declares the peer dead, but an application
    /// heartbeat's responder still answers the server's pings.
    @Test func aNilIntervalStillAnswersTheServersApplicationPings() {
        var options = EmbeddedWebSocket.quietOptions
        options.heartbeat = HeartbeatPolicy(
            interval: nil, kind: .application(.text(ping: "ping", pong: "pong", answersServerPings: true)))
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.advance(by: .seconds(3600))
        #expect(ws.clientFrames().isEmpty, "no ping of ours")
        ws.serverSends(text: "ping")
        #expect(ws.clientFrames().compactMap(\.string) == ["pong"])
        ws.advance(by: .seconds(3600))
        #expect(ws.ended() == nil)
        #expect(ws.events().isEmpty, "the server's ping is consumed")
    }
}
