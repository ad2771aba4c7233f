import Foundation
import RealtimeTestSupport
import Testing

@_spi(Transport) @testable import RealtimeCore

/// The WebSocket connection's life as a table: each test is a sequence of events with the
/// actions expected back, on a manual timeline (no I/O, no sleeping).
@Suite(.timeLimit(.minutes(1))) struct WebSocketConnectionStateMachineTests {
    typealias Instant = ManualClock.Instant
    typealias Machine = WebSocketConnectionStateMachine<Instant>

    static func at(_ seconds: Double) -> Instant { Instant(offset: .milliseconds(Int64(seconds * 1000))) }
    static let url = URL(string: "wss://a.example/feed")!

    static func machine(
        heartbeat: HeartbeatPolicy = .disabled, idle: Duration? = nil, maxRedirects: Int = 10,
        allowsInsecureRedirects: Bool = false, maxOutboundBytes: Int = 16 << 20, closeTimeout: Duration = .seconds(5),
        writeTimeout: Duration? = .seconds(8)
    ) -> Machine {
        Machine(configuration: .init(
            url: url, connectTimeout: .seconds(10), idleTimeout: idle, closeTimeout: closeTimeout,
            maxRedirects: maxRedirects, allowsInsecureRedirects: allowsInsecureRedirects, heartbeat: heartbeat,
            maxOutboundBytes: maxOutboundBytes, writeTimeout: writeTimeout, failWriteTimeout: .seconds(1)))
    }

    /// A machine that is open at t = 0.
    static func open(
        heartbeat: HeartbeatPolicy = .disabled, idle: Duration? = nil, maxOutboundBytes: Int = 16 << 20,
        closeTimeout: Duration = .seconds(5), writeTimeout: Duration? = .seconds(8)
    ) -> Machine {
        var m = machine(
            heartbeat: heartbeat, idle: idle, maxOutboundBytes: maxOutboundBytes, closeTimeout: closeTimeout,
            writeTimeout: writeTimeout)
        _ = m.start(now: at(0))
        m.streamConnected()
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

    /// RFC 6455 §4.1: a connection waiting for its turn to open has no connect deadline; it
    /// gets the whole timeout from the end of the wait. Once its request may have gone,
    /// nothing moves the deadline.
    @Test func aStreamWaitingForItsTurnHasTheWholeConnectTimeoutFromTheEndOfTheWait() {
        var m = Self.machine()
        _ = m.start(now: Self.at(0))
        let waits = m.streamWaitsForItsTurn()
        #expect(waits)
        #expect(m.deadlines.armed.isEmpty, "waiting is not part of the attempt")
        #expect(m.timerFired(.connect, now: Self.at(10)) == .none, "a stale timer does nothing")
        let begins = m.streamBeginsAfterWaiting(now: Self.at(45))
        #expect(begins == Self.at(55))
        let again = m.streamBeginsAfterWaiting(now: Self.at(46))
        #expect(again == nil, "once")
        m.streamConnected()
        let waitsAfterConnecting = m.streamWaitsForItsTurn()
        #expect(!waitsAfterConnecting)
        guard case .end(let ending) = m.timerFired(.connect, now: Self.at(55)) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.error?.code == .connectTimeout)
        let afterEnd = m.streamBeginsAfterWaiting(now: Self.at(60))
        #expect(afterEnd == nil, "nothing after the end")
    }

    @Test func aStreamThatNeverWaitedKeepsItsDeadline() {
        var m = Self.machine()
        _ = m.start(now: Self.at(0))
        let begins = m.streamBeginsAfterWaiting(now: Self.at(5))
        #expect(begins == nil)
        #expect(m.deadlines[.connect] == Self.at(10))
    }

    @Test func openingArmsHeartbeatAndIdleAndDisarmsConnect() {
        var m = Self.machine(heartbeat: .ping(every: .seconds(30)), idle: .seconds(60))
        _ = m.start(now: Self.at(0))
        #expect(m.handshakeSucceeded(now: Self.at(2)) == .open(heartbeat: Self.at(32), idle: Self.at(62)))
        #expect(Set(m.deadlines.armed) == [.heartbeat, .idle])
        #expect(m.isOpen)
    }

    /// Initiator: our close frame, the server's answer, then TCP's end: a clean end, reporting
    /// the server's code and reason (RFC 6455 §7.1.5, §7.1.6), not ours.
    @Test func closingAsInitiator() {
        var m = Self.open(heartbeat: .ping(every: .seconds(30)), idle: .seconds(60))
        #expect(m.closeRequested(code: 4000, reason: "bye", now: Self.at(1))
            == .startClosing(code: 4000, reason: "bye", closeDeadline: Self.at(6)))
        #expect(m.deadlines.armed == [.close], "heartbeat and idle stop while closing")
        #expect(m.closeRequested(code: 1000, reason: "", now: Self.at(2)) == .none, "one close frame")
        #expect(m.bytesReceived(now: Self.at(2)) == .decode, "the server's frames are still read")
        #expect(m.messageReceived(Message(content: .text("late")), now: Self.at(2)) == .deliver)
        #expect(m.closeReceived(code: 4001, reason: "ok", now: Self.at(2)) == .none)
        #expect(m.pingReceived([1], now: Self.at(2)) == .none)
        #expect(m.pongToSend() == nil, "no pong after our close frame")
        guard case .end(let ending) = m.streamClosed(nil) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.clean && ending.end.code == 4001 && ending.end.reason == "ok")
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
        #expect(ending.end.code == 1006 && ending.end.reason == nil, "no close frame came (§7.1.5)")
    }

    /// A received close code and the error its end carries (none for a normal or retry-later close).
    static let responderCloses: [(UInt16?, RealtimeError.Code?)] = [
        (nil, nil), (1000, nil), (1001, nil), (1011, .remoteClosed), (1012, nil), (1013, .remoteClosed),
        (1014, .remoteClosed), (4000, .remoteClosed),
    ]

    @Test(arguments: responderCloses)
    func closingAsResponder(code: UInt16?, error: RealtimeError.Code?) {
        var m = Self.open(heartbeat: .ping(every: .seconds(30)))
        #expect(m.closeReceived(code: code, reason: "r", now: Self.at(1))
            == .startClosing(code: code, reason: "", closeDeadline: Self.at(6)), "the code is echoed")
        #expect(m.messageReceived(Message(content: .text("x")), now: Self.at(1)) == .consume)
        #expect(m.closeFrameSent, "nothing more is written")
        guard case .end(let ending) = m.streamClosed(nil) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.clean && ending.end.code == code ?? 1005 && ending.end.reason == "r", "1005: no code in the frame")
        #expect(ending.end.error?.code == error)
        #expect(ending.end.error?.closeCode == (error == nil ? nil : code))
    }

    /// 1013 and 1014 say what they mean (no "protocol error", no "unassigned").
    @Test func retryLaterCloseDetails() {
        #expect(Machine.closeError(1013)?.detail == "server closed with 1013 (try again later)")
        #expect(Machine.closeError(1014)?.detail == "server closed with 1014 (bad gateway)")
        #expect(Machine.closeError(4321)?.detail == "server closed with 4321")
    }

    // MARK: Failing the connection (RFC 6455 §7.1.7)

    /// Each violation fails the connection with its close code: reading stops at once, the
    /// close frame goes out, and the end (with the error) comes as soon as the kernel took
    /// it, without waiting for the server's answer.
    @Test(arguments: [
        (RealtimeError.protocolViolation("reserved opcode"), UInt16(1002)),
        (RealtimeError(.invalidUTF8, detail: "bad", closeCode: 1007), UInt16(1007)),
        (RealtimeError(.messageTooLarge, detail: "big", closeCode: 1009), UInt16(1009)),
        (RealtimeError(.frameTooLarge, detail: "big", closeCode: 1009), UInt16(1009)),
    ] as [(RealtimeError, UInt16)])
    func protocolViolationFailsTheConnection(error: RealtimeError, code: UInt16) {
        var m = Self.open(heartbeat: .ping(every: .seconds(30)), idle: .seconds(60))
        #expect(m.protocolViolation(error, now: Self.at(1)) == .fail(code: code, deadline: Self.at(2)))
        #expect(m.deadlines.armed == [.close], "the timers of an open connection stop")
        #expect(m.discardsInput, "the socket is not read again")
        #expect(m.bytesReceived(now: Self.at(1)) == .discard, "the rest of the last read is dropped")
        #expect(m.protocolViolation(error, now: Self.at(1)) == .none, "one failure")
        #expect(m.closeRequested(code: 1000, reason: "", now: Self.at(1)) == .none, "one close frame")
        #expect(m.closeFrameSent, "nothing more is written")
        #expect(m.pingReceived([1], now: Self.at(1)) == .none, "no pong after the close frame")
        guard case .end(let ending) = m.closeFrameWritten() else {
            Issue.record("the end follows the close frame's write")
            return
        }
        #expect(!ending.end.clean && ending.end.error == error)
        #expect(ending.end.code == 1006 && ending.end.error?.closeCode == code, "ours is the error's; the server sent none")
        #expect(ending.closeFrame == nil, "the close frame is already out")
        #expect(m.isClosed && m.deadlines.armed.isEmpty)
        #expect(m.streamClosed(nil) == .none, "one end")
    }

    /// A peer that does not read either: the end comes at the write deadline, not after the
    /// close timeout.
    @Test func failingEndsAtTheWriteDeadlineWhenThePeerDoesNotRead() {
        var m = Self.open()
        let error = RealtimeError.protocolViolation("bad frame")
        #expect(m.protocolViolation(error, now: Self.at(1)) == .fail(code: 1002, deadline: Self.at(2)))
        guard case .end(let ending) = m.timerFired(.close, now: Self.at(2)) else {
            Issue.record("expected the end at the write deadline")
            return
        }
        #expect(ending.end.error == error && ending.closeFrame == nil)
    }

    /// The write deadline is the shorter of failWriteTimeout and closeTimeout.
    @Test func failingWaitsNoLongerThanTheCloseTimeout() {
        var m = Self.open(closeTimeout: .milliseconds(300))
        #expect(m.protocolViolation(.protocolViolation("x"), now: Self.at(1)) == .fail(code: 1002, deadline: Self.at(1.3)))
    }

    /// TCP ending while failing ends the attempt with the error too.
    @Test func failingEndsWhenTheStreamCloses() {
        var m = Self.open()
        let error = RealtimeError(.invalidUTF8, detail: "bad", closeCode: 1007)
        _ = m.protocolViolation(error, now: Self.at(1))
        guard case .end(let ending) = m.streamClosed(RealtimeError(.network)) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.error == error, "the violation is what the user sees")
    }

    /// A violation after our own close frame: no second close frame; it replaces
    /// `cancelled`, is not clean, and nothing more is read. The end follows the write of
    /// the close frame already sent, or comes at once when it was written.
    @Test func protocolViolationWhileClosing() {
        let error = RealtimeError.protocolViolation("bad frame")
        var m = Self.open()
        _ = m.closeRequested(code: 1000, reason: "", now: Self.at(0))
        #expect(m.protocolViolation(error, now: Self.at(1)) == .fail(code: nil, deadline: Self.at(2)))
        #expect(m.discardsInput)
        guard case .end(let ending) = m.closeFrameWritten() else {
            Issue.record("expected the end once our close frame is written")
            return
        }
        #expect(!ending.end.clean && ending.end.error == error && ending.end.code == 1006)

        var written = Self.open()
        _ = written.closeReceived(code: 1000, reason: "", now: Self.at(0))
        #expect(written.closeFrameWritten() == .none, "the closing handshake goes on")
        guard case .end(let now) = written.protocolViolation(error, now: Self.at(1)) else {
            Issue.record("our close frame is written: the end at once")
            return
        }
        #expect(!now.end.clean && now.end.error == error && now.closeFrame == nil)
        #expect(now.end.code == 1000, "the server's close frame came first")
    }

    /// A violation 0.1 s after a message: nothing more is read, sends go on (no close frame
    /// yet), and the failure comes at the end of the reply window (0.25 s after the message),
    /// or at once when the application closes or aborts, or when TCP ends.
    @Test func aViolationRightAfterAMessageHoldsForReplies() {
        let error = RealtimeError.protocolViolation("reserved opcode")
        func held() -> Machine {
            var m = Self.open(heartbeat: .ping(every: .seconds(30)), idle: .seconds(60))
            #expect(m.messageReceived(Message(content: .text("one")), now: Self.at(1)) == .deliver)
            #expect(m.protocolViolation(error, now: Self.at(1.1)) == .holdForReplies(deadline: Self.at(1.25)))
            #expect(m.deadlines.armed == [.close], "only the window's deadline")
            #expect(m.discardsInput && m.bytesReceived(now: Self.at(1.1)) == .discard, "nothing more is read")
            #expect(!m.closeFrameSent, "the application's answers may still go out")
            #expect(m.protocolViolation(error, now: Self.at(1.2)) == .none, "one failure")
            return m
        }
        var m = held()
        #expect(m.timerFired(.close, now: Self.at(1.25)) == .fail(code: 1002, deadline: Self.at(2.25)))
        guard case .end(let ending) = m.closeFrameWritten() else {
            Issue.record("the end follows the close frame")
            return
        }
        #expect(ending.end.error == error && ending.end.code == 1006 && ending.closeFrame == nil)

        var closed = held()
        #expect(closed.closeRequested(code: 1000, reason: "", now: Self.at(1.2)) == .fail(code: 1002, deadline: Self.at(2.2)))
        var aborted = held()
        #expect(aborted.abortRequested()?.closeFrame == 1002)
        var cut = held()
        guard case .end(let cutEnding) = cut.streamClosed(RealtimeError(.network)) else {
            Issue.record("TCP's end ends it")
            return
        }
        #expect(cutEnding.end.error == error, "the violation is what the user sees")
    }

    /// The window counts from the last message: a violation later than that fails at once.
    @Test func aViolationLongAfterTheLastMessageFailsAtOnce() {
        var m = Self.open()
        _ = m.messageReceived(Message(content: .text("one")), now: Self.at(1))
        #expect(m.protocolViolation(.protocolViolation("x"), now: Self.at(1.25)) == .fail(code: 1002, deadline: Self.at(2.25)))
    }

    /// The write deadline never extends a closing handshake already under way.
    @Test func protocolViolationLateInTheClosingHandshakeKeepsItsDeadline() {
        var m = Self.open()
        _ = m.closeRequested(code: 1000, reason: "", now: Self.at(0))
        #expect(m.protocolViolation(.protocolViolation("x"), now: Self.at(4.5)) == .fail(code: nil, deadline: Self.at(5)))
        guard case .end = m.timerFired(.close, now: Self.at(5)) else {
            Issue.record("expected the end at the close deadline")
            return
        }
    }

    /// An orderly close still waits for the server: the write of our close frame does not
    /// end it.
    @Test func closeFrameWrittenDoesNotEndAnOrderlyClose() {
        var m = Self.open()
        _ = m.closeRequested(code: 1000, reason: "", now: Self.at(0))
        #expect(m.closeFrameWritten() == .none)
        #expect(m.bytesReceived(now: Self.at(1)) == .decode)
        #expect(m.closeReceived(code: 1000, reason: "", now: Self.at(1)) == .none)
        guard case .end(let ending) = m.streamClosed(nil) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.clean)
    }

    // MARK: Whether the request reached the server

    enum HandshakeEnd: String, CaseIterable, Sendable {
        case cancel, abort, connectTimeout, streamClosed, invalidAnswer
    }

    /// Every end before the connection opens reports `requestWasDelivered` true once the
    /// byte stream connected (the handshake request goes out then), false before.
    @Test(arguments: HandshakeEnd.allCases, [false, true])
    func requestWasDeliveredOnceTheStreamConnected(end: HandshakeEnd, connected: Bool) {
        var m = Self.machine()
        _ = m.start(now: Self.at(0))
        if connected { m.streamConnected() }
        let ending: Machine.Ending?
        switch end {
        case .cancel:
            guard case .end(let e) = m.closeRequested(code: 1000, reason: "", now: Self.at(1)) else { ending = nil; break }
            ending = e
        case .abort:
            ending = m.abortRequested()
        case .connectTimeout:
            guard case .end(let e) = m.timerFired(.connect, now: Self.at(10)) else { ending = nil; break }
            ending = e
        case .streamClosed:
            guard case .end(let e) = m.streamClosed(RealtimeError(.network)) else { ending = nil; break }
            ending = e
        case .invalidAnswer:
            ending = m.handshakeFailed(RealtimeError(.handshake))
        }
        #expect(ending?.end.requestWasDelivered == connected, "\(end), connected: \(connected)")
    }

    /// A redirect's hop was answered: the request reached a server, whatever the next hop does.
    @Test func requestWasDeliveredStaysTrueAcrossRedirects() {
        var m = Self.machine()
        _ = m.start(now: Self.at(0))
        m.streamConnected()
        _ = m.redirected(to: URL(string: "wss://b.example/")!, status: 302)
        guard case .end(let ending) = m.timerFired(.connect, now: Self.at(10)) else {
            Issue.record("expected the end")
            return
        }
        #expect(ending.end.requestWasDelivered)
    }

    // MARK: Write progress (a peer that does not read)

    typealias Outbound = Machine.OutboundProgress

    /// Bytes waiting for the kernel start the watch (every quarter of the timeout); a whole
    /// timeout with none taken ends the attempt with peerNotReading and a best-effort 1008.
    @Test func aPeerThatReadsNothingEndsWithPeerNotReading() {
        var m = Self.open(writeTimeout: .seconds(8))
        let stuck = Outbound(pendingBytes: 100, bytesWritten: 50)
        #expect(m.bytesWritten(stuck, now: Self.at(1)) == .watch(deadline: Self.at(3)))
        #expect(m.bytesWritten(stuck, now: Self.at(2)) == .none, "one watch")
        #expect(m.timerFired(.write, now: Self.at(3), outbound: stuck) == .rearm(Self.at(5)))
        #expect(m.timerFired(.write, now: Self.at(5), outbound: stuck) == .rearm(Self.at(7)))
        #expect(m.timerFired(.write, now: Self.at(7), outbound: stuck) == .rearm(Self.at(9)))
        guard case .end(let ending) = m.timerFired(.write, now: Self.at(9), outbound: stuck) else {
            Issue.record("8 s without a byte taken: the end")
            return
        }
        #expect(ending.end.error?.code == .peerNotReading)
        #expect(ending.end.error?.closeCode == 1008 && ending.closeFrame == 1008)
        #expect(!ending.end.clean && m.isClosed && m.deadlines.armed.isEmpty)
    }

    /// The write timeout applied is at most two thirds of `TCP_USER_TIMEOUT`, so 1.25 × it
    /// (the latest end) stays short of the kernel's own drop of a shut-window peer.
    @Test(arguments: [
        (Duration?.some(.seconds(30)), Duration?.some(.seconds(30)), Duration?.some(.seconds(20))),
        (.some(.seconds(20)), .some(.seconds(30)), .some(.seconds(20))),
        (.some(.seconds(5)), .some(.seconds(30)), .some(.seconds(5))),
        (.some(.seconds(60)), .some(.seconds(3)), .some(.seconds(2))),
        (.some(.seconds(30)), nil, .some(.seconds(30))),
        (nil, .some(.seconds(30)), nil),
    ])
    func writeTimeoutStaysBelowTheUserTimeout(write: Duration?, user: Duration?, applied: Duration?) {
        #expect(Machine.Configuration.effectiveWriteTimeout(write, tcpUserTimeout: user) == applied)
        let configuration = Machine.Configuration(url: Self.url, writeTimeout: write, tcpUserTimeout: user)
        #expect(configuration.writeTimeout == applied)
        if let applied, let user { #expect(applied * 5 / 4 < user) }
    }

    /// The defaults (write timeout 20 s, `TCP_USER_TIMEOUT` 30 s, and a write timeout of 30 s
    /// next to a 30 s user timeout): a peer that reads nothing ends the attempt with
    /// peerNotReading before the kernel's 30 s, whatever the check's granularity.
    @Test(arguments: [Duration.seconds(20), .seconds(30)])
    func peerNotReadingComesBeforeTheKernelsUserTimeout(write: Duration) {
        let configuration = Machine.Configuration(url: Self.url, writeTimeout: write, tcpUserTimeout: .seconds(30))
        var m = Machine(configuration: configuration)
        _ = m.start(now: Self.at(0))
        m.streamConnected()
        _ = m.handshakeSucceeded(now: Self.at(0))
        let stuck = Outbound(pendingBytes: 100, bytesWritten: 50)
        guard case .watch(var deadline) = m.bytesWritten(stuck, now: Self.at(0)) else {
            Issue.record("expected the watch")
            return
        }
        for _ in 0..<100 {
            switch m.timerFired(.write, now: deadline, outbound: stuck) {
            case .rearm(let next): deadline = next
            case .end(let ending):
                #expect(ending.end.error?.code == .peerNotReading)
                #expect(deadline < Self.at(30), "ended at \(deadline), after the kernel's user timeout")
                return
            default:
                Issue.record("unexpected action")
                return
            }
        }
        Issue.record("never ended")
    }

    /// Any byte taken restarts the period: a slow peer that reads is never ended, however
    /// long its backlog takes.
    @Test func aSlowPeerThatReadsIsNeverEnded() {
        var m = Self.open(writeTimeout: .seconds(8))
        var written: UInt64 = 0
        guard case .watch(var deadline) = m.bytesWritten(Outbound(pendingBytes: 1 << 20, bytesWritten: 0), now: Self.at(0)) else {
            Issue.record("expected the watch")
            return
        }
        var now = Self.at(0)
        for second in 1...600 {
            now = Self.at(Double(second))
            if second % 7 == 0 { written += 1 } // one byte every 7 s, just inside the timeout
            guard now >= deadline else { continue }
            switch m.timerFired(.write, now: now, outbound: Outbound(pendingBytes: 1 << 20, bytesWritten: written)) {
            case .rearm(let next): deadline = next
            default:
                Issue.record("ended at \(second) s although a byte left every 7 s")
                return
            }
        }
        #expect(m.isOpen)
    }

    /// Progress restarts the period from the check that saw it.
    @Test func progressRestartsThePeriod() {
        var m = Self.open(writeTimeout: .seconds(8))
        _ = m.bytesWritten(Outbound(pendingBytes: 100, bytesWritten: 0), now: Self.at(1))
        let moved = Outbound(pendingBytes: 60, bytesWritten: 40)
        #expect(m.timerFired(.write, now: Self.at(3), outbound: moved) == .rearm(Self.at(5)))
        #expect(m.timerFired(.write, now: Self.at(9), outbound: moved) == .rearm(Self.at(11)), "8 s from the check at 3 s")
        guard case .end = m.timerFired(.write, now: Self.at(11), outbound: moved) else {
            Issue.record("8 s since the last progress: the end")
            return
        }
    }

    /// A queue that drained ends the watch; the next wait starts a new one from then.
    @Test func aDrainedQueueEndsTheWatch() {
        var m = Self.open(writeTimeout: .seconds(8))
        _ = m.bytesWritten(Outbound(pendingBytes: 100, bytesWritten: 0), now: Self.at(1))
        #expect(m.timerFired(.write, now: Self.at(3), outbound: Outbound(pendingBytes: 0, bytesWritten: 100)) == .none)
        #expect(m.deadlines.armed.isEmpty)
        #expect(m.bytesWritten(Outbound(pendingBytes: 0, bytesWritten: 200), now: Self.at(20)) == .none, "nothing waits")
        #expect(m.bytesWritten(Outbound(pendingBytes: 5, bytesWritten: 300), now: Self.at(30)) == .watch(deadline: Self.at(32)))
        #expect(m.timerFired(.write, now: Self.at(32), outbound: Outbound(pendingBytes: 5, bytesWritten: 300)) == .rearm(Self.at(34)))
    }

    /// Only while open: the handshake has its connect timeout, closing and failing their
    /// close deadline; nil disables the watch.
    @Test func theWatchRunsOnlyWhileOpenAndEnabled() {
        let stuck = Outbound(pendingBytes: 100, bytesWritten: 0)
        var disabled = Self.open(writeTimeout: nil)
        #expect(disabled.bytesWritten(stuck, now: Self.at(1)) == .none)
        var handshaking = Self.machine()
        _ = handshaking.start(now: Self.at(0))
        #expect(handshaking.bytesWritten(stuck, now: Self.at(1)) == .none)
        var closing = Self.open()
        #expect(closing.bytesWritten(stuck, now: Self.at(1)) == .watch(deadline: Self.at(3)))
        _ = closing.closeRequested(code: 1000, reason: "", now: Self.at(2))
        #expect(closing.deadlines.armed == [.close], "closing stops the watch")
        #expect(closing.bytesWritten(stuck, now: Self.at(2)) == .none)
        #expect(closing.timerFired(.write, now: Self.at(3), outbound: stuck) == .none, "a stale tick")
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
        // The read that answers the ping (its bytes, then its pong frame) keeps the schedule:
        // the next ping goes out 10 s after the last one, one timer firing per ping.
        _ = m.bytesReceived(now: Self.at(18))
        m.pongReceived(now: Self.at(18))
        #expect(m.timerFired(.heartbeat, now: Self.at(27)) == .sendHeartbeat(.ping([]), next: Self.at(37)))
        // Traffic after that read postpones it again.
        _ = m.bytesReceived(now: Self.at(28))
        _ = m.bytesReceived(now: Self.at(30))
        #expect(m.timerFired(.heartbeat, now: Self.at(37)) == .rearm(Self.at(40)))
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
        m.readsPaused(true, now: Self.at(0))
        #expect(m.timerFired(.heartbeat, now: Self.at(10)) == .rearm(Self.at(20)))
        #expect(m.timerFired(.idle, now: Self.at(15)) == .rearm(Self.at(30)))
    }

    /// When reading resumes after a pause, the peer gets a whole idle period from then: an
    /// idle tick that lands just after the resume must not end the connection.
    @Test func resumingReadsRestartsTheIdlePeriod() {
        var m = Self.open(idle: .seconds(5))
        m.readsPaused(true, now: Self.at(0))
        #expect(m.timerFired(.idle, now: Self.at(5)) == .rearm(Self.at(10)))
        m.readsPaused(false, now: Self.at(9.99))  // the loop has not read yet at the tick at 10 s
        #expect(m.timerFired(.idle, now: Self.at(10)) == .rearm(Self.at(14.99)), "a whole period from the resume")
        guard case .end(let ending) = m.timerFired(.idle, now: Self.at(14.99)) else {
            Issue.record("silent for a whole period after the resume: the end")
            return
        }
        #expect(ending.end.error?.code == .idleTimeout)
    }

    /// The heartbeat's silence also starts over on resuming: no ping right after it.
    @Test func resumingReadsRestartsTheHeartbeatSilence() {
        var m = Self.open(heartbeat: .ping(every: .seconds(10), missedLimit: 1))
        m.readsPaused(true, now: Self.at(1))
        #expect(m.timerFired(.heartbeat, now: Self.at(10)) == .rearm(Self.at(20)))
        m.readsPaused(false, now: Self.at(19.9))
        #expect(m.timerFired(.heartbeat, now: Self.at(20)) == .rearm(Self.at(29.9)))
        #expect(m.timerFired(.heartbeat, now: Self.at(29.9)) == .sendHeartbeat(.ping([]), next: Self.at(39.9)))
    }

    /// Pausing twice or resuming without a pause changes nothing.
    @Test func resumingWithoutAPauseKeepsTheSilence() {
        var m = Self.open(idle: .seconds(5))
        _ = m.bytesReceived(now: Self.at(1))
        m.readsPaused(false, now: Self.at(4))
        #expect(m.timerFired(.idle, now: Self.at(5)) == .rearm(Self.at(6)), "silent since the byte at 1 s")
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

    @Test func refusalGathersItsExcerptWithinTheBodyExcerptWait() {
        var m = Self.machine()
        _ = m.start(now: Self.at(0))
        #expect(m.handshakeRefused(now: Self.at(1), bodyComplete: false) == .collectBody(deadline: Self.at(2)))
        #expect(RealtimeError.bodyExcerptWait == .seconds(1))
        #expect(m.isRefused)
        #expect(m.timerFired(.connect, now: Self.at(2)) == .finishErrorBody)
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
        #expect(ending?.end.code == 1006 && ending?.end.error?.code == .cancelled)
    }

    @Test func abortWhileClosingSendsNoSecondCloseFrame() {
        var m = Self.open()
        _ = m.closeRequested(code: 1000, reason: "", now: Self.at(0))
        let ending = m.abortRequested()
        #expect(ending?.closeFrame == nil)
        #expect(ending?.end.code == 1006, "the server never answered")
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
