import Realtime
@testable import RealtimeSocketIO
import Testing

/// The Engine.IO v4 rules of one connection, as a table of inputs and the machine's answers.
@Suite("EngineIOLinkMachine", .timeLimit(.minutes(1)))
struct EngineIOLinkMachineTests {
    static let open = #"0{"sid":"s","upgrades":[],"pingInterval":300,"pingTimeout":200,"maxPayload":1000}"#

    static func text(_ t: String) -> Message { Message(content: .text(t)) }
    static func binary(_ b: [UInt8] = [1]) -> Message { Message(content: .binary(b)) }

    static func opened() -> EngineIOLinkMachine {
        var m = EngineIOLinkMachine(maxAttachments: 2)
        _ = m.received(text(open))
        return m
    }

    static func code(_ action: EngineIOLinkMachine.ReceiveAction) -> RealtimeError.Code? {
        if case .end(let e?) = action { return e.code }
        return nil
    }

    @Test("the open packet comes first: it is delivered and arms pingInterval + pingTimeout")
    func openFirst() {
        var m = EngineIOLinkMachine(maxAttachments: 2)
        guard case .deliverOpen(let open, let after, _) = m.received(Self.text(Self.open)) else {
            Issue.record("no open")
            return
        }
        #expect(open.sid == "s" && open.maxPayload == 1000)
        #expect(after == .milliseconds(500))
    }

    @Test("anything but an open packet first is a protocol violation", arguments: ["40", "2", "6", "4", #"0{"sid":1}"#, "0"])
    func notOpenFirst(first: String) {
        var m = EngineIOLinkMachine(maxAttachments: 2)
        #expect(Self.code(m.received(Self.text(first))) == .protocolViolation)
        #expect(m.received(Self.text(Self.open)) == .drop, "nothing after the end")
    }

    @Test("a ping is answered, not delivered, and moves the deadline; a stale deadline is ignored")
    func ping() {
        var m = EngineIOLinkMachine(maxAttachments: 2)
        guard case .deliverOpen(_, _, let first) = m.received(Self.text(Self.open)) else { return }
        guard case .pong(let after, let second) = m.received(Self.text("2")) else {
            Issue.record("no pong")
            return
        }
        #expect(after == .milliseconds(500) && second != first)
        #expect(m.deadlinePassed(generation: first) == .drop)
        #expect(m.received(Self.text(#"42["x"]"#)) == .deliver)
        #expect(Self.code(m.deadlinePassed(generation: second)) == .heartbeatTimeout)
        #expect(m.received(Self.text("2")) == .drop)
    }

    @Test("the heartbeat deadline of the open packet ends the connection with heartbeat_timeout, close 1001")
    func neverPinged() {
        var m = EngineIOLinkMachine(maxAttachments: 2)
        guard case .deliverOpen(_, _, let g) = m.received(Self.text(Self.open)) else { return }
        guard case .end(let e?) = m.deadlinePassed(generation: g) else {
            Issue.record("no end")
            return
        }
        #expect(e.code == .heartbeatTimeout && e.closeCode == 1001)
    }

    @Test("close is a clean end; pong, upgrade and noop are consumed; unknown types and empty packets are violations")
    func packetTypes() {
        var m = Self.opened()
        #expect(m.received(Self.text("3")) == .consume)
        #expect(m.received(Self.text("6")) == .consume)
        #expect(m.received(Self.text("5")) == .consume)
        #expect(Self.code(Self.opened().receivedCopy(Self.text("9"))) == .protocolViolation)
        #expect(Self.code(Self.opened().receivedCopy(Self.text(""))) == .protocolViolation)
        #expect(Self.code(Self.opened().receivedCopy(Self.text("48"))) == .protocolViolation)
        #expect(Self.code(Self.opened().receivedCopy(Self.text(Self.open))) == .protocolViolation, "a second open")
        #expect(m.received(Self.text("1")) == .end(nil))
    }

    @Test("a BINARY packet owes exactly its attachments, before any text; none owed, a binary is a violation")
    func attachments() {
        var m = Self.opened()
        #expect(m.received(Self.text(#"452-["f",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)) == .deliver)
        #expect(m.attachmentsOwed == 2)
        #expect(m.received(Self.binary()) == .deliver)
        #expect(m.received(Self.binary()) == .deliver)
        #expect(m.received(Self.text(#"42["x"]"#)) == .deliver)
        #expect(Self.code(m.received(Self.binary())) == .protocolViolation, "no packet owns it")

        var early = Self.opened()
        _ = early.received(Self.text(#"451-["f",{"_placeholder":true,"num":0}]"#))
        #expect(Self.code(early.received(Self.text(#"42["x"]"#))) == .protocolViolation, "text while owed")
        #expect(Self.code(Self.opened().receivedCopy(Self.text(#"453-["f"]"#))) == .messageTooLarge)
        #expect(Self.code(Self.opened().receivedCopy(Self.text(#"45-["f"]"#))) == .protocolViolation)
        #expect(Self.code(Self.opened().receivedCopy(Self.binary())) == .protocolViolation)
    }

    @Test("a failure the Socket.IO layer reports ends it once")
    func failedOnce() {
        var m = Self.opened()
        #expect(Self.code(m.failed(.protocolViolation("x"))) == .protocolViolation)
        #expect(m.failed(.protocolViolation("y")) == .drop)
    }
}

extension EngineIOLinkMachine {
    func receivedCopy(_ message: Message) -> ReceiveAction {
        var copy = self
        return copy.received(message)
    }
}
