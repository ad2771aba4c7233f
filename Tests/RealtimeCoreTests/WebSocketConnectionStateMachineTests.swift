import Foundation
import RealtimeTestSupport
import Testing

@testable import RealtimeCore

/// The WebSocket connection's life as a table: each test is a sequence of events with the
/// actions expected back, on a manual timeline (no I/O, no sleeping).
@Suite(.timeLimit(.minutes(1))) struct WebSocketConnectionStateMachineTests {
    typealias Instant = ManualClock.Instant
    typealias Machine = WebSocketConnectionStateMachine<Instant>

    static func at(_ seconds: Double) -> Instant { Instant(offset: .milliseconds(Int64(seconds * 1000))) }
    static let url = URL(string: "wss://a.example/feed")!

    static func machine(
        heartbeat: HeartbeatPolicy = .disabled, idle: Duration? = nil, maxRedirects: Int = 10,
        allowsInsecureRedirects: Bool = false, maxOutboundBytes: Int = 16 << 20
    ) -> Machine {
        Machine(configuration: .init(
            url: url, connectTimeout: .seconds(10), idleTimeout: idle, closeTimeout: .seconds(5),
            maxRedirects: maxRedirects, allowsInsecureRedirects: allowsInsecureRedirects, heartbeat: heartbeat,
            maxOutboundBytes: maxOutboundBytes))
    }

    /// A machine that is open at t = 0.
    static func open(heartbeat: HeartbeatPolicy = .disabled, idle: Duration? = nil, maxOutboundBytes: Int = 16 << 20) -> Machine {
        var m = machine(heartbeat: heartbeat, idle: idle, maxOutboundBytes: maxOutboundBytes)
        _ = m.start(now: at(0))
        _ = m.handshakeSucceeded(now: at(0))
        return m
    }

    @Test func startArmsTheConnectDeadlineAndItsExpiryEndsTheAttempt() {
        var m = Self.machine()
        #expect(m.start(now: Self.at(1)) == .connect(Self.url, deadline: Self.at(11)))
        #expect(m.deadlines.armed == [.connect])
        guard case .end(let ending) = m.timerFired(.connect, now: Self.at(11)) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.error?.code == .connectTimeout)
        #expect(ending.end.requestWasDelivered == false)
        #expect(ending.closeFrame == nil)
        #expect(m.isClosed && m.deadlines.armed.isEmpty)
        #expect(m.timerFired(.connect, now: Self.at(20)) == .none, "a stale timer does nothing")
    }

    @Test func openingArmsHeartbeatAndIdleAndDisarmsConnect() {
        var m = Self.machine(heartbeat: .ping(every: .seconds(30)), idle: .seconds(60))
        _ = m.start(now: Self.at(0))
        #expect(m.handshakeSucceeded(now: Self.at(2)) == .open(heartbeat: Self.at(32), idle: Self.at(62)))
        #expect(Set(m.deadlines.armed) == [.heartbeat, .idle])
        #expect(m.isOpen)
    }

    /// Initiator: our close frame, the server's answer, then TCP's end: a clean end.
    @Test func closingAsInitiator() {
        var m = Self.open(heartbeat: .ping(every: .seconds(30)), idle: .seconds(60))
        #expect(m.closeRequested(code: 4000, reason: "bye", now: Self.at(1))
            == .startClosing(code: 4000, reason: "bye", closeDeadline: Self.at(6)))
        #expect(m.deadlines.armed == [.close], "heartbeat and idle stop while closing")
        #expect(m.closeRequested(code: 1000, reason: "", now: Self.at(2)) == .none, "one close frame")
        #expect(m.bytesReceived(now: Self.at(2)) == .decode, "the server's frames are still read")
        #expect(m.messageReceived(Message(content: .text("late")), now: Self.at(2)) == .deliver)
        #expect(m.closeReceived(code: 4000, reason: "", now: Self.at(2)) == .none)
        #expect(m.pingReceived([1], now: Self.at(2)) == .none)
        #expect(m.pongToSend() == nil, "no pong after our close frame")
        guard case .end(let ending) = m.streamClosed(nil) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.clean && ending.end.code == 4000 && ending.end.reason == "bye")
        #expect(ending.end.error?.code == .cancelled)
        #expect(ending.closeFrame == nil)
        #expect(m.deadlines.armed.isEmpty)
    }

    /// A close code that may not go on the wire (1005, 1006, …) becomes 1000 (RFC 6455 §7.4.1).
    @Test func closeWithAReservedCodeSends1000() {
        var m = Self.open()
        #expect(m.closeRequested(code: 1006, reason: "", now: Self.at(0))
            == .startClosing(code: 1000, reason: "", closeDeadline: Self.at(5)))
    }

    @Test func initiatorWithoutAnswerEndsAtTheCloseDeadlineNotClean() {
        var m = Self.open()
        _ = m.closeRequested(code: 1000, reason: "", now: Self.at(0))
        guard case .end(let ending) = m.timerFired(.close, now: Self.at(5)) else {
            Issue.record("expected the end")
            return
        }
        #expect(!ending.end.clean)
        #expect(ending.end.error?.code == .cancelled)
    }

    @Test(arguments: [
        (UInt16?.none, RealtimeError.Code?.none),
        (UInt16?(1000), RealtimeError.Code?.none),
        (UInt16?(1001), RealtimeError.Code?.none),
        (UInt16?(1011), RealtimeError.Code?(.remoteClosed)),
    ])
    func closingAsResponder(code: UInt16?, error: RealtimeError.Code?) {
        var m = Self.open(heartbeat: .ping(every: .seconds(30)))
        #expect(m.closeReceived(code: code, reason: "r", now: Self.at(1))
            == .startClosing(code: code, reason: "", closeDeadline: Self.at(6)), "the code is echoed")
        #expect(m.messageReceived(Message(content: .text("x")), now: Self.at(1)) == .consume)
        #expect(m.sendAdmitted() == .reject(RealtimeError(.notConnected, detail: "connection closed")))
        guard case .end(let ending) = m.streamClosed(nil) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.clean && ending.end.code == code && ending.end.reason == "r")
        #expect(ending.end.error?.code == error)
    }

    /// Failing (RFC 6455 §7.1.7): the error's close code goes out, input is ignored, the
    /// attempt ends with the error when TCP ends.
    @Test func protocolViolationFailsTheConnection() {
        var m = Self.open()
        let error = RealtimeError(.invalidUTF8, detail: "bad", closeCode: 1007)
        #expect(m.protocolViolation(error, now: Self.at(1)) == .startClosing(code: 1007, reason: "", closeDeadline: Self.at(6)))
        #expect(m.bytesReceived(now: Self.at(2)) == .discard)
        #expect(m.discardsInput)
        #expect(m.protocolViolation(error, now: Self.at(2)) == .none)
        guard case .end(let ending) = m.streamClosed(nil) else {
            Issue.record("expected the end")
            return
        }
        #expect(!ending.end.clean && ending.end.code == 1007 && ending.end.error == error)
    }

    /// A violation after our own close frame replaces `cancelled` and is not clean.
    @Test func protocolViolationWhileClosingReplacesCancelled() {
        var m = Self.open()
        _ = m.closeRequested(code: 1000, reason: "", now: Self.at(0))
        let error = RealtimeError.protocolViolation("bad frame")
        #expect(m.protocolViolation(error, now: Self.at(1)) == .none, "no second close frame")
        guard case .end(let ending) = m.timerFired(.close, now: Self.at(5)) else {
            Issue.record("expected the end")
            return
        }
        #expect(!ending.end.clean && ending.end.error == error)
    }

    @Test func tcpEndWithoutACloseFrameIsNotClean() {
        var m = Self.open()
        guard case .end(let ending) = m.streamClosed(nil) else {
            Issue.record("expected the end")
            return
        }
        #expect(!ending.end.clean && ending.end.error?.code == .remoteClosed)
        #expect(m.streamClosed(nil) == .none, "one end")
    }

    @Test func heartbeatPingsThenDeclaresTheSilentPeerDead() {
        var m = Self.open(heartbeat: .ping(every: .seconds(10), missedLimit: 2))
        #expect(m.timerFired(.heartbeat, now: Self.at(10)) == .sendHeartbeat(.ping([]), next: Self.at(20)))
        #expect(m.timerFired(.heartbeat, now: Self.at(20)) == .sendHeartbeat(.ping([]), next: Self.at(30)))
        guard case .end(let ending) = m.timerFired(.heartbeat, now: Self.at(30)) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.error?.code == .heartbeatTimeout)
        #expect(ending.closeFrame == 1001, "a best-effort close frame, no wait for the answer")
    }

    @Test func inboundTrafficPostponesTheHeartbeat() {
        var m = Self.open(heartbeat: .ping(every: .seconds(10), missedLimit: 1))
        _ = m.bytesReceived(now: Self.at(7))
        #expect(m.timerFired(.heartbeat, now: Self.at(10)) == .rearm(Self.at(17)))
        #expect(m.timerFired(.heartbeat, now: Self.at(17)) == .sendHeartbeat(.ping([]), next: Self.at(27)))
        m.pongReceived(now: Self.at(18))
        #expect(m.timerFired(.heartbeat, now: Self.at(27)) == .rearm(Self.at(28)))
    }

    /// Fixed interval: pings go out on schedule although the server talks all the time.
    @Test func fixedIntervalHeartbeatIgnoresTraffic() {
        var m = Self.open(heartbeat: .ping(every: .seconds(10), missedLimit: 1, mode: .fixedInterval))
        _ = m.bytesReceived(now: Self.at(7))
        #expect(m.timerFired(.heartbeat, now: Self.at(10)) == .sendHeartbeat(.ping([]), next: Self.at(20)))
        _ = m.bytesReceived(now: Self.at(19))
        #expect(m.timerFired(.heartbeat, now: Self.at(20)) == .sendHeartbeat(.ping([]), next: Self.at(30)))
        guard case .end(let ending) = m.timerFired(.heartbeat, now: Self.at(30)) else {
            Issue.record("silent since 19: dead at the second tick after it")
            return
        }
        #expect(ending.end.error?.code == .heartbeatTimeout)
    }

    /// Silence while we stopped reading for a slow consumer is not the peer's fault.
    @Test func pausedReadsCountAsLife() {
        var m = Self.open(heartbeat: .ping(every: .seconds(10), missedLimit: 1), idle: .seconds(15))
        m.readsPaused(true)
        #expect(m.timerFired(.heartbeat, now: Self.at(10)) == .rearm(Self.at(20)))
        #expect(m.timerFired(.idle, now: Self.at(15)) == .rearm(Self.at(30)))
    }

    /// When reading resumes after a pause, the peer gets a whole idle period from then: an
    /// idle tick that lands just after the resume must not end the connection.
    @Test func resumingReadsRestartsTheIdlePeriod() {
        var m = Self.open(idle: .seconds(5))
        m.readsPaused(true)
        #expect(m.timerFired(.idle, now: Self.at(5)) == .rearm(Self.at(10)))
        m.readsPaused(false)  // at 9.99 s; the loop has not read yet at the tick at 10 s
        withKnownIssue("WebSocket: the idle period does not restart when reading resumes after back-pressure") {
            guard case .rearm = m.timerFired(.idle, now: Self.at(10)) else {
                Issue.record("ended 0.01 s after reading resumed")
                return
            }
        }
    }

    @Test func idleTimeoutReArmsUntilSilenceIsLongEnough() {
        var m = Self.open(idle: .seconds(5))
        _ = m.bytesReceived(now: Self.at(3))
        #expect(m.timerFired(.idle, now: Self.at(5)) == .rearm(Self.at(8)))
        guard case .end(let ending) = m.timerFired(.idle, now: Self.at(8)) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.error?.code == .idleTimeout)
    }

    @Test func pathProbeNeedsAByteBeforeItsDeadline() {
        var m = Self.open()
        #expect(m.verifyRequested(within: .seconds(2), now: Self.at(1)) == .sendPing(deadline: Self.at(3)))
        _ = m.bytesReceived(now: Self.at(2))
        #expect(m.timerFired(.probe, now: Self.at(3)) == .none, "the peer answered")
        #expect(m.verifyRequested(within: .seconds(2), now: Self.at(4)) == .sendPing(deadline: Self.at(6)))
        guard case .end(let ending) = m.timerFired(.probe, now: Self.at(6)) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.error?.code == .idleTimeout)
        #expect(ending.closeFrame == 1001)
    }

    @Test func verifyBeforeOpenDoesNothing() {
        var m = Self.machine()
        #expect(m.verifyRequested(within: .seconds(1), now: Self.at(0)) == .none)
        _ = m.start(now: Self.at(0))
        #expect(m.verifyRequested(within: .seconds(1), now: Self.at(0)) == .none)
    }

    @Test func redirectsAreCountedAndCredentialsStayOnTheirOrigin() {
        var m = Self.machine(maxRedirects: 2)
        _ = m.start(now: Self.at(0))
        let other = URL(string: "wss://b.example/x")!
        #expect(m.redirected(to: other, status: 302) == .follow(other, sendCredentials: false))
        #expect(m.redirected(to: Self.url, status: 302) == .follow(Self.url, sendCredentials: false), "dropped for good")
        guard case .end(let ending) = m.redirected(to: Self.url, status: 302) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.error?.code == .redirect && ending.end.error?.status == 302)
    }

    @Test func sameOriginRedirectKeepsCredentials() {
        var m = Self.machine()
        _ = m.start(now: Self.at(0))
        let next = URL(string: "wss://a.example:443/elsewhere")!
        #expect(m.redirected(to: next, status: 307) == .follow(next, sendCredentials: true))
        #expect(m.url == next)
    }

    /// wss → ws would put the handshake and every message in clear text: refused unless the
    /// user opted in; staying secure (or going from ws to wss) is followed.
    @Test(arguments: [
        ("ws://a.example/x", false, false),
        ("http://a.example/x", false, false),
        ("ws://a.example/x", true, true),
        ("wss://b.example/x", false, true),
        ("https://a.example/x", false, true),
    ])
    func insecureRedirects(to target: String, allowed: Bool, followed: Bool) {
        var m = Self.machine(allowsInsecureRedirects: allowed)
        _ = m.start(now: Self.at(0))
        let next = URL(string: target)!
        switch m.redirected(to: next, status: 301) {
        case .follow(let url, _):
            #expect(followed && url == next)
        case .end(let ending):
            #expect(!followed)
            #expect(ending.end.error?.code == .redirect && ending.end.error?.status == 301)
            #expect(ending.end.error?.detail?.contains("wss to ws") == true)
        }
        var plain = Machine(configuration: .init(url: URL(string: "ws://a.example/")!))
        _ = plain.start(now: Self.at(0))
        if case .end = plain.redirected(to: URL(string: "wss://a.example/")!, status: 302) {
            Issue.record("ws to wss is always fine")
        }
    }

    @Test func refusalGathersItsExcerptWithinHalfASecond() {
        var m = Self.machine()
        _ = m.start(now: Self.at(0))
        #expect(m.handshakeRefused(now: Self.at(1), bodyComplete: false) == .collectBody(deadline: Self.at(1.5)))
        #expect(m.isRefused)
        #expect(m.timerFired(.connect, now: Self.at(1.5)) == .finishErrorBody)
        let error = RealtimeError(.handshake, status: 403)
        #expect(m.handshakeFailed(error)?.end.error == error)
        #expect(m.handshakeFailed(error) == nil, "one end")
    }

    @Test func closeAndAbortBeforeOpenAbandonTheAttempt() {
        var m = Self.machine()
        guard case .end(let ending) = m.closeRequested(code: 1000, reason: "", now: Self.at(0)) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.error?.code == .cancelled && !ending.end.requestWasDelivered)
        var n = Self.machine()
        _ = n.start(now: Self.at(0))
        #expect(n.abortRequested()?.end.error?.code == .cancelled)
        #expect(n.deadlines.armed.isEmpty)
        #expect(n.abortRequested() == nil)
    }

    @Test func abortWhenOpenSendsGoingAwayAndEndsAtOnce() {
        var m = Self.open()
        let ending = m.abortRequested()
        #expect(ending?.closeFrame == 1001)
        #expect(ending?.end.code == 1001 && ending?.end.error?.code == .cancelled)
    }

    @Test func abortWhileClosingSendsNoSecondCloseFrame() {
        var m = Self.open()
        _ = m.closeRequested(code: 1000, reason: "", now: Self.at(0))
        let ending = m.abortRequested()
        #expect(ending?.closeFrame == nil)
        #expect(ending?.end.code == 1000)
    }

    @Test func sendsAreHeldDuringTheHandshakeWrittenWhenOpen() {
        var m = Self.machine()
        #expect(m.sendAdmitted() == .hold)
        _ = m.start(now: Self.at(0))
        #expect(m.sendAdmitted() == .hold)
        _ = m.handshakeSucceeded(now: Self.at(0))
        #expect(m.sendAdmitted() == .write)
    }

    @Test func pingsAreAnsweredWhileOpen() {
        var m = Self.open()
        #expect(m.pingReceived([7], now: Self.at(0)) == .sendPong([7]))
        #expect(m.pingReceived([8], now: Self.at(0)) == .sendPong([8]), "each ping while the peer reads")
    }

    /// RFC 6455 §5.5.3: while our pongs are not taken, only the most recent ping is answered,
    /// once they are.
    @Test func pingsCoalesceWhileThePongsAreNotTaken() {
        var m = Self.open()
        #expect(m.pingReceived([1], now: Self.at(0)) == .sendPong([1]))
        m.readFinished() // the read ended with its pong still in flight: a stall
        #expect(m.pingReceived([2], now: Self.at(1)) == .none)
        #expect(m.pingReceived([3], now: Self.at(1)) == .none)
        #expect(m.pongToSend() == nil, "nothing more while stalled")
        m.pongWritten()
        #expect(m.pongToSend() == [3], "the latest ping, once the stall is over")
        m.pongWritten()
        #expect(m.pongToSend() == nil)
        #expect(m.pingReceived([4], now: Self.at(2)) == .sendPong([4]))
    }

    /// A peer that floods pings and reads nothing: once the pongs it asked for pass the
    /// outbound bound, the attempt ends with peerNotReading (and nothing was queued for them).
    @Test func pingFloodWithoutReadingEndsWithPeerNotReading() {
        var m = Self.open(maxOutboundBytes: 1000)
        #expect(m.pingReceived([], now: Self.at(0)) == .sendPong([]))
        m.readFinished()
        var pings = 0
        var ending: Machine.Ending?
        while ending == nil, pings < 10_000 {
            pings += 1
            if case .end(let e) = m.pingReceived(Array(repeating: 1, count: 125), now: Self.at(1)) { ending = e }
        }
        #expect(ending?.end.error?.code == .peerNotReading)
        #expect(ending?.end.error?.closeCode == 1008)
        #expect(pings == 1000 / 131 + 1, "ends as soon as more than 1000 bytes are owed")
        #expect(m.isClosed && m.deadlines.armed.isEmpty)
    }

    /// A peer that reads (the pongs of each read reach the kernel) may ping as much as it likes.
    @Test func pingsFromAReadingPeerNeverEndTheConnection() {
        var m = Self.open(maxOutboundBytes: 1000)
        for _ in 0..<10_000 {
            #expect(m.pingReceived(Array(repeating: 1, count: 125), now: Self.at(0)) != .none)
            _ = m.pingReceived(Array(repeating: 2, count: 125), now: Self.at(0))
            m.pongWritten()
            m.pongWritten()
            m.readFinished()
        }
        #expect(m.isOpen)
    }

    /// A stall that clears (the peer read again) forgives what was owed.
    @Test func aClearedStallForgivesTheDebt() {
        var m = Self.open(maxOutboundBytes: 1000)
        for round in 0..<100 {
            #expect(m.pingReceived([], now: Self.at(0)) == .sendPong([]), "round \(round)")
            m.readFinished()
            for _ in 0..<7 { #expect(m.pingReceived(Array(repeating: 1, count: 125), now: Self.at(0)) == .none) }
            m.pongWritten()
            #expect(m.pongToSend() != nil)
            m.pongWritten()
        }
        #expect(m.isOpen)
    }

    /// Application heartbeats: replies are consumed, server pings answered, but no answer
    /// follows our close frame.
    @Test func applicationHeartbeatTraffic() {
        let hb = ApplicationHeartbeat.text(ping: "ping", pong: "pong", answersServerPings: true)
        var m = Self.open(heartbeat: .application(every: .seconds(10), hb))
        #expect(m.messageReceived(Message(content: .text("pong")), now: Self.at(1)) == .consume)
        #expect(m.messageReceived(Message(content: .text("ping")), now: Self.at(1)) == .reply(.text("pong")))
        #expect(m.messageReceived(Message(content: .text("data")), now: Self.at(1)) == .deliver)
        _ = m.closeRequested(code: 1000, reason: "", now: Self.at(2))
        #expect(m.messageReceived(Message(content: .text("ping")), now: Self.at(2)) == .consume)
        #expect(m.messageReceived(Message(content: .text("data")), now: Self.at(2)) == .deliver)
    }
}
