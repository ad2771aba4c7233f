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

    @Test func pongRestartsTheCount() {
        var hb = HeartbeatStateMachine<Instant>(policy: .ping(every: .seconds(10), missedLimit: 1))
        hb.start(now: at(0))
        #expect(hb.tick(now: at(10)) == .sendPing(.ping([])))
        hb.pongReceived(now: at(15))
        #expect(hb.unansweredPings == 0)
        #expect(hb.nextDeadline == at(25))
        #expect(hb.tick(now: at(20)) == .none)
        #expect(hb.tick(now: at(25)) == .sendPing(.ping([])))
        guard case .declareDead = hb.tick(now: at(35)) else {
            Issue.record("expected declareDead")
            return
        }
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
}
