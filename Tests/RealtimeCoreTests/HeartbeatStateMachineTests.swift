import RealtimeTestSupport
import Testing

@testable import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct HeartbeatStateMachineTests {
    typealias Instant = ManualClock.Instant
    private func at(_ s: Int) -> Instant { Instant(offset: .seconds(s)) }

    @Test func pingsAfterSilenceThenDeclaresDead() {
        var hb = HeartbeatStateMachine<Instant>(policy: .ping(every: .seconds(30), missedLimit: 2, payload: [1]))
        hb.start(now: at(0))
        #expect(hb.nextDeadline == at(30))
        #expect(hb.tick(now: at(29)) == .none)
        #expect(hb.tick(now: at(30)) == .sendPing(.ping([1])))
        #expect(hb.nextDeadline == at(60))
        #expect(hb.tick(now: at(60)) == .sendPing(.ping([1])))
        #expect(hb.unansweredPings == 2)
        guard case .declareDead(let e) = hb.tick(now: at(90)) else {
            Issue.record("expected declareDead")
            return
        }
        #expect(e.code == .heartbeatTimeout)
        #expect(hb.nextDeadline == nil)
        #expect(hb.tick(now: at(200)) == .none, "nothing after death")
    }

    /// The answer restarts the count but not the interval: the next ping goes out one
    /// interval after the previous one, so an idle connection's timer fires once per ping.
    @Test func pongRestartsTheCountAndKeepsTheSchedule() {
        var hb = HeartbeatStateMachine<Instant>(policy: .ping(every: .seconds(10), missedLimit: 1))
        hb.start(now: at(0))
        #expect(hb.tick(now: at(10)) == .sendPing(.ping([])))
        hb.pongReceived(now: at(15))
        #expect(hb.unansweredPings == 0)
        #expect(hb.nextDeadline == at(20))
        #expect(hb.tick(now: at(19)) == .none)
        #expect(hb.tick(now: at(20)) == .sendPing(.ping([])))
        guard case .declareDead = hb.tick(now: at(30)) else {
            Issue.record("expected declareDead")
            return
        }
    }

    /// Only the first traffic after a ping keeps its schedule; later traffic is ordinary
    /// silence-breaking and moves the next ping to one interval after it.
    @Test func trafficAfterTheAnswerMovesTheNextPing() {
        var hb = HeartbeatStateMachine<Instant>(policy: .ping(every: .seconds(10), missedLimit: 2))
        hb.start(now: at(0))
        #expect(hb.tick(now: at(10)) == .sendPing(.ping([])))
        hb.messageReceived(now: at(11))
        #expect(hb.nextDeadline == at(20))
        hb.messageReceived(now: at(13))
        #expect(hb.nextDeadline == at(23))
        #expect(hb.tick(now: at(20)) == .none)
        #expect(hb.tick(now: at(23)) == .sendPing(.ping([])))
    }

    @Test func anyTrafficCountsAsLiveness() {
        var hb = HeartbeatStateMachine<Instant>(policy: .ping(every: .seconds(10), missedLimit: 1))
        hb.start(now: at(0))
        for t in stride(from: 5, through: 100, by: 5) {
            hb.messageReceived(now: at(t))
            #expect(hb.tick(now: at(t)) == .none)
        }
        #expect(hb.nextDeadline == at(110))
    }

    @Test func disabledDoesNothing() {
        var hb = HeartbeatStateMachine<Instant>(policy: .disabled)
        hb.start(now: at(0))
        #expect(hb.nextDeadline == nil)
        #expect(hb.tick(now: at(1_000_000)) == .none)
    }

    @Test func applicationHeartbeatHidesRepliesAndAnswersServerPings() {
        let app = ApplicationHeartbeat.text(ping: "ping", pong: "pong", answersServerPings: true)
        var hb = HeartbeatStateMachine<Instant>(policy: .application(every: .seconds(5), app))
        hb.start(now: at(0))
        #expect(hb.tick(now: at(5)) == .sendPing(.text("ping")))
        #expect(hb.inspect(Message(content: .text("pong")), now: at(6)) == .consume)
        #expect(hb.unansweredPings == 0)
        #expect(hb.inspect(Message(content: .text("ping")), now: at(7)) == .reply(.text("pong")))
        #expect(hb.inspect(Message(content: .text("hello")), now: at(8)) == .deliver)
        #expect(hb.nextDeadline == at(13))
    }

    @Test func pingFramesDeliverEveryMessage() {
        var hb = HeartbeatStateMachine<Instant>(policy: .default)
        hb.start(now: at(0))
        #expect(hb.inspect(Message(content: .text("pong")), now: at(1)) == .deliver)
    }

    @Test func stopEndsTheMachine() {
        var hb = HeartbeatStateMachine<Instant>(policy: .default)
        hb.start(now: at(0))
        hb.stop()
        #expect(hb.nextDeadline == nil)
        #expect(hb.tick(now: at(1000)) == .none)
    }

    // MARK: Modes

    /// whenIdle: dead exactly I × (N + 1) after the last inbound byte.
    @Test(arguments: [1, 2, 3])
    func whenIdleDeadPeerTimeIsIntervalTimesLimitPlusOne(limit: Int) {
        var hb = HeartbeatStateMachine<Instant>(policy: .ping(every: .seconds(10), missedLimit: limit))
        hb.start(now: at(0))
        hb.messageReceived(now: at(7)) // the last sign of life
        var deadAt: Int?
        var t = 7
        while deadAt == nil, t < 1000 {
            t += 1
            if case .declareDead = hb.tick(now: at(t)) { deadAt = t }
        }
        #expect(deadAt == 7 + 10 * (limit + 1))
    }

    /// fixedInterval: a ping every interval from the open, whatever the traffic.
    @Test func fixedIntervalPingsWhateverTheTraffic() {
        var hb = HeartbeatStateMachine<Instant>(policy: .ping(every: .seconds(10), missedLimit: 2, mode: .fixedInterval))
        hb.start(now: at(0))
        var pings: [Int] = []
        for t in 1...60 {
            if t % 3 == 0 { hb.messageReceived(now: at(t)) } // a server that talks every 3 s
            if hb.nextDeadline.map({ $0 <= at(t) }) == true, case .sendPing = hb.tick(now: at(t)) { pings.append(t) }
        }
        #expect(pings == [10, 20, 30, 40, 50, 60])
        #expect(hb.unansweredPings == 1, "traffic restarts the count, not the schedule")
    }

    /// fixedInterval: dead at the (N + 1)-th tick after the last inbound byte, so between
    /// I × N and I × (N + 1) after it.
    @Test(arguments: [(1, 3), (2, 3), (2, 9), (3, 0)])
    func fixedIntervalDeadPeerTime(limit: Int, lastHeard: Int) {
        var hb = HeartbeatStateMachine<Instant>(policy: .ping(every: .seconds(10), missedLimit: limit, mode: .fixedInterval))
        hb.start(now: at(0))
        if lastHeard > 0 { hb.messageReceived(now: at(lastHeard)) }
        var deadAt: Int?
        while deadAt == nil, let next = hb.nextDeadline {
            if case .declareDead = hb.tick(now: next) { deadAt = Int(next.offset.components.seconds) }
        }
        let firstTickAfter = (lastHeard / 10 + 1) * 10
        #expect(deadAt == firstTickAfter + 10 * limit)
        let silence = (deadAt ?? 0) - lastHeard
        #expect(silence > 10 * limit && silence <= 10 * (limit + 1))
    }

    /// fixedInterval keeps its cadence when a tick comes late, and resumes from now after a
    /// stall that skipped whole periods.
    @Test func fixedIntervalKeepsItsCadence() {
        var hb = HeartbeatStateMachine<Instant>(policy: .ping(every: .seconds(10), missedLimit: 5, mode: .fixedInterval))
        hb.start(now: at(0))
        #expect(hb.tick(now: at(12)) == .sendPing(.ping([])))
        #expect(hb.nextDeadline == at(20))
        #expect(hb.tick(now: at(55)) == .sendPing(.ping([])))
        #expect(hb.nextDeadline == at(65))
    }

    @Test func fixedIntervalApplicationHeartbeat() {
        let app = ApplicationHeartbeat.text(ping: "ping", pong: "pong")
        var hb = HeartbeatStateMachine<Instant>(policy: .application(every: .seconds(5), mode: .fixedInterval, app))
        hb.start(now: at(0))
        #expect(hb.inspect(Message(content: .text("data")), now: at(4)) == .deliver)
        #expect(hb.tick(now: at(5)) == .sendPing(.text("ping")))
        #expect(hb.inspect(Message(content: .text("pong")), now: at(6)) == .consume)
        #expect(hb.nextDeadline == at(10))
    }

    // MARK: Responder only

    /// Engine.IO v4: the server pings, the client answers and sends nothing of its own; a
    /// server silent for `pingInterval + pingTimeout` is gone.
    @Test func responderOnlyAnswersAndDeclaresDeadAfterTheSilence() {
        let policy = HeartbeatPolicy.responder(deadAfter: .seconds(45), answering: .text(ping: "2", pong: "3", answersServerPings: true))
        #expect(policy.mode == .responderOnly)
        var hb = HeartbeatStateMachine<Instant>(policy: policy)
        hb.start(now: at(0))
        #expect(hb.nextDeadline == at(45))
        #expect(hb.inspect(Message(content: .text("2")), now: at(25)) == .reply(.text("3")))
        #expect(hb.nextDeadline == at(70), "the server's ping starts the silence over")
        #expect(hb.inspect(Message(content: .text("42[\"news\"]")), now: at(30)) == .deliver)
        #expect(hb.nextDeadline == at(75), "so does any traffic")
        for t in 31..<75 { #expect(hb.tick(now: at(t)) == .none, "nothing is ever sent") }
        guard case .declareDead(let e) = hb.tick(now: at(75)) else {
            Issue.record("expected declareDead")
            return
        }
        #expect(e.code == .heartbeatTimeout)
        #expect(hb.nextDeadline == nil)
    }

    /// Ping frames, responder only: the transport answers the server's pings itself; the
    /// heartbeat only bounds the silence, and never sends.
    @Test func responderOnlyWithPingFramesBoundsTheSilence() {
        var hb = HeartbeatStateMachine<Instant>(policy: .responder(deadAfter: .seconds(10)))
        hb.start(now: at(0))
        hb.messageReceived(now: at(4))
        #expect(hb.tick(now: at(10)) == .none, "fired early: re-arm for the moved deadline")
        #expect(hb.nextDeadline == at(14))
        #expect(hb.inspect(Message(content: .text("x")), now: at(5)) == .deliver)
        guard case .declareDead = hb.tick(now: at(15)) else {
            Issue.record("expected declareDead")
            return
        }
    }

    /// Without a silence bound the responder answers and the heartbeat runs no timer.
    @Test func responderOnlyWithoutABoundNeverDeclaresDead() {
        let policy = HeartbeatPolicy.responder(deadAfter: nil, answering: .text(ping: "ping", pong: "pong", answersServerPings: true))
        #expect(!policy.isEnabled)
        var hb = HeartbeatStateMachine<Instant>(policy: policy)
        hb.start(now: at(0))
        #expect(hb.nextDeadline == nil)
        #expect(hb.inspect(Message(content: .text("ping")), now: at(1)) == .reply(.text("pong")))
        #expect(hb.tick(now: at(1_000_000)) == .none)
    }

    /// A message both predicates accept (a server heartbeat that is the sign of life and a
    /// ping to answer) is answered, and counts as the answer to our ping.
    @Test func theResponderRunsForMessagesTheValidatorAccepts() {
        let app = ApplicationHeartbeat(
            payload: .text("ping"), isReply: { $0.text?.hasPrefix("hb") == true },
            responder: { $0.text?.hasPrefix("hb ") == true ? .text("ack") : nil })
        var hb = HeartbeatStateMachine<Instant>(policy: .application(every: .seconds(5), missedLimit: 1, app))
        hb.start(now: at(0))
        #expect(hb.tick(now: at(5)) == .sendPing(.text("ping")))
        #expect(hb.unansweredPings == 1)
        #expect(hb.inspect(Message(content: .text("hb 7")), now: at(6)) == .reply(.text("ack")))
        #expect(hb.unansweredPings == 0, "the answered message is also the sign of life")
        #expect(hb.inspect(Message(content: .text("hb")), now: at(7)) == .consume, "accepted, nothing to answer")
    }

    @Test func responderOnlyWithAnApplicationHeartbeatWithoutAResponderIsRefused() async {
        await #expect(processExitsWith: .failure) {
            _ = HeartbeatPolicy.responder(deadAfter: .seconds(1), answering: .text(ping: "2", pong: "3"))
        }
    }
}
