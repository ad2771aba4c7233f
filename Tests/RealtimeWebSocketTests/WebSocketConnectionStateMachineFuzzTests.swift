import Foundation
import RealtimeTestSupport
import Testing

@testable import RealtimeCore
@_spi(Transport) import RealtimeWebSocket
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import Realtime

/// Thousands of seeded random event sequences through the WebSocket connection machine,
/// performed by a model driver that does exactly what the actions say, with invariants
/// checked after every step:
/// - at most one close frame is sent, and nothing (pong, heartbeat, message) after it;
/// - at most one `opened`, before any message; nothing delivered after the end;
/// - the timers the driver holds are exactly the machine's ``deadlines`` (so an end, which
///   cancels every handle, leaves none running);
/// - exactly one `ended` once the machine is closed, and every sequence reaches it;
/// - once the connection fails, no input is decoded (§7.1.1) and the end is at most
///   `failWriteTimeout` away;
/// - `requestWasDelivered` is true exactly when the byte stream had connected;
/// - the send queue (``SendModel``): every sender resolved exactly once, messages written in
///   order, none before `opened` or after the close frame, the bounds kept;
/// - the write-progress watch runs only while bytes wait for the kernel, and ends the
///   attempt only after a whole `writeTimeout` in which none left.
@Suite(.timeLimit(.minutes(1))) struct WebSocketConnectionStateMachineFuzzTests {
    typealias Instant = ManualClock.Instant
    typealias Machine = WebSocketConnectionStateMachine<Instant>

    @Test func randomEventSequencesKeepTheInvariants() async {
        var rng = SeededGenerator(seed: 0x5EED_0F_50C4E7)
        for sequence in 0..<3000 {
            await yieldToOtherTests(every: 50, sequence)
            var driver = ModelDriver(heartbeat: Self.randomHeartbeat(&rng), idle: Bool.random(using: &rng) ? .seconds(4) : nil)
            let steps = Int.random(in: 1...80, using: &rng)
            for step in 0..<steps {
                driver.step(&rng)
                // The first broken sequence is enough to report.
                guard driver.checkInvariants() else {
                    Issue.record("sequence \(sequence), step \(step)")
                    return
                }
            }
            driver.driveToTheEnd()
            guard driver.checkInvariants(), driver.ends == 1, driver.armed.isEmpty else {
                Issue.record("sequence \(sequence) did not end exactly once with no timer left (ends: \(driver.ends), armed: \(driver.armed.keys))")
                return
            }
        }
    }

    static func randomHeartbeat(_ rng: inout SeededGenerator) -> HeartbeatPolicy {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return .disabled
        case 1: return .ping(every: .seconds(3), missedLimit: 2)
        case 2: return .responder(deadAfter: .seconds(3), answering: .text(ping: "ping", pong: "pong", answersServerPings: true))
        default: return .application(every: .seconds(2), missedLimit: 1, .text(ping: "ping", pong: "pong", answersServerPings: true))
        }
    }
}

/// Performs the machine's actions on a model of the I/O layer and records what went out.
struct ModelDriver {
    typealias Instant = ManualClock.Instant
    typealias Machine = WebSocketConnectionStateMachine<Instant>

    var machine: Machine
    var now = Instant(offset: .zero)
    /// The timer handles the driver holds.
    var armed: [Machine.Timer: Instant] = [:]
    var closeFrames = 0
    var writesAfterClose = 0
    var opened = 0
    var ends = 0
    var deliveredBeforeOpen = 0
    var deliveredAfterEnd = 0
    var sends = SendModel()
    var writtenBeforeOpen = 0
    var pongsInFlight = 0
    /// The byte stream of some hop connected (the request may have reached a server).
    var connected = false
    var wrongDeliveryFlag = 0
    /// A close frame written whose arrival in the kernel was not reported yet.
    var closeFrameInFlight = false
    /// When the machine asked to fail the connection; bytes decoded after it.
    var failedAt: Instant?
    var decodedAfterFailing = 0
    var failDeadlineTooLate = 0
    /// Holds for replies after a violation that outlast the reply window.
    var replyWindowTooLong = 0
    /// The model kernel: bytes waiting for it, and every byte it took.
    var pendingBytes = 0
    var kernelWritten: UInt64 = 0
    /// When the kernel last took a byte, and write-progress ends that came too early.
    var lastKernelProgress = Instant(offset: .zero)
    var earlyWriteTimeouts = 0
    static let writeTimeout = Duration.seconds(4)
    static let failWriteTimeout = Duration.seconds(1)

    init(heartbeat: HeartbeatPolicy, idle: Duration?) {
        machine = Machine(configuration: .init(
            url: URL(string: "wss://a.example/")!, connectTimeout: .seconds(5), idleTimeout: idle,
            closeTimeout: .seconds(2), maxRedirects: 2, heartbeat: heartbeat, maxOutboundBytes: 30,
            writeTimeout: Self.writeTimeout, failWriteTimeout: Self.failWriteTimeout))
    }

    var outbound: Machine.OutboundProgress { .init(pendingBytes: pendingBytes, bytesWritten: kernelWritten) }

    // MARK: Events

    mutating func step(_ rng: inout SeededGenerator) {
        if Int.random(in: 0..<4, using: &rng) == 0, let timer = armed.keys.randomElement(using: &rng) {
            fire(timer)
            return
        }
        if machine.isIdle {
            startOrCancel(&rng)
        } else if machine.isHandshaking {
            handshakeEvent(&rng)
        } else if machine.isRefused {
            refusedEvent(&rng)
        } else {
            connectedEvent(&rng)
        }
    }

    private mutating func startOrCancel(_ rng: inout SeededGenerator) {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: perform(machine.closeRequested(code: 1000, reason: "", now: now))
        case 1: send(&rng)
        default:
            switch machine.start(now: now) {
            case .connect(_, let deadline): armed[.connect] = deadline
            }
        }
    }

    private mutating func handshakeEvent(_ rng: inout SeededGenerator) {
        switch Int.random(in: 0..<11, using: &rng) {
        case 0...3:
            // An answer comes over a connected stream.
            streamConnected()
            switch machine.handshakeSucceeded(now: now) {
            case .open(let heartbeat, let idle):
                armed[.connect] = nil
                armed[.heartbeat] = heartbeat
                armed[.idle] = idle
                opened += 1
                for _ in 0..<sends.opened() { write() }
            }
        case 4:
            streamConnected()
            let host = Bool.random(using: &rng) ? "a.example" : "b.example"
            switch machine.redirected(to: URL(string: "wss://\(host)/")!, status: 302) {
            case .follow: break
            case .end(let ending): perform(ending)
            }
        case 5:
            streamConnected()
            switch machine.handshakeRefused(now: now, bodyComplete: Bool.random(using: &rng)) {
            case .finishErrorBody: if let ending = machine.handshakeFailed(RealtimeError(.handshake)) { perform(ending) }
            case .collectBody(let deadline): armed[.connect] = deadline
            }
        case 6: if let ending = machine.handshakeFailed(RealtimeError(.handshake)) { perform(ending) }
        case 7: perform(machine.streamClosed(Bool.random(using: &rng) ? nil : RealtimeError(.network)))
        case 8: streamConnected()
        default: common(&rng)
        }
    }

    private mutating func streamConnected() {
        machine.streamConnected()
        connected = true
    }

    private mutating func refusedEvent(_ rng: inout SeededGenerator) {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: if let ending = machine.handshakeFailed(RealtimeError(.handshake, status: 500)) { perform(ending) }
        case 1: perform(machine.streamClosed(nil))
        default: common(&rng)
        }
    }

    private mutating func connectedEvent(_ rng: inout SeededGenerator) {
        switch Int.random(in: 0..<15, using: &rng) {
        case 0...3: read(&rng)
        case 4: perform(machine.protocolViolation(RealtimeError.protocolViolation("x"), now: now))
        case 5: perform(machine.streamClosed(Bool.random(using: &rng) ? nil : RealtimeError(.network)))
        case 6:
            switch machine.verifyRequested(within: .seconds(1), now: now) {
            case .none: break
            case .sendPing(let deadline):
                write()
                armed[.probe] = deadline
            }
        case 7: machine.readsPaused(Bool.random(using: &rng), now: now)
        case 8 where pongsInFlight > 0: pongTaken()
        case 9 where closeFrameInFlight: closeFrameTaken()
        case 10 where pendingBytes > 0: kernelTakes(Int.random(in: 1...pendingBytes, using: &rng))
        case 11: send(&rng)
        case 12 where sends.drainAsked: for _ in 0..<sends.drain() { write() }
        case 13 where sends.hasUnsettledWrite: sends.settleOldestWrite(failed: false)
        default: common(&rng)
        }
    }

    /// The kernel took our close frame: the machine hears it.
    private mutating func closeFrameTaken() {
        closeFrameInFlight = false
        perform(machine.closeFrameWritten())
    }

    /// The peer read: the kernel took `count` waiting bytes.
    private mutating func kernelTakes(_ count: Int) {
        pendingBytes -= count
        kernelWritten += UInt64(count)
        lastKernelProgress = now
    }

    /// Events possible in every state: the application closes, aborts, sends; time passes.
    private mutating func common(_ rng: inout SeededGenerator) {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0:
            sends.stopAccepting()
            perform(machine.closeRequested(code: UInt16.random(in: 999...4999, using: &rng), reason: "", now: now))
        case 1:
            sends.stopAccepting()
            if let ending = machine.abortRequested() { perform(ending) }
        case 2: send(&rng)
        case 3: sends.cancelNewest()
        default: now = now.advanced(by: .milliseconds(Int64.random(in: 0...1500, using: &rng)))
        }
    }

    /// One read: bytes, then what the pipeline makes of them, until input is discarded. (A
    /// failed connection's driver no longer reads; the model tries, to see it is refused.)
    private mutating func read(_ rng: inout SeededGenerator) {
        let decode = machine.bytesReceived(now: now) == .decode
        if decode, failedAt != nil { decodedAfterFailing += 1 }
        guard decode else { return }
        for _ in 0..<Int.random(in: 0...3, using: &rng) where !machine.discardsInput {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: message(["data", "ping", "pong"].randomElement(using: &rng)!)
            case 1:
                switch machine.pingReceived([1], now: now) {
                case .none: break
                case .sendPong:
                    write()
                    pongsInFlight += 1
                case .end(let ending): perform(ending)
                }
            case 2: machine.pongReceived(now: now)
            case 3: perform(machine.closeReceived(code: [nil, 1000, 1011].randomElement(using: &rng)!, reason: "", now: now))
            case 4: perform(machine.protocolViolation(RealtimeError(.invalidUTF8, closeCode: 1007), now: now))
            default: message("data")
            }
        }
        // The kernel takes the read's pongs, or does not (the peer is not reading).
        if Bool.random(using: &rng) { while pongsInFlight > 0 { pongTaken() } }
        machine.readFinished()
    }

    /// The kernel took a pong; the one owed for the latest ping of a stall may follow.
    private mutating func pongTaken() {
        pongsInFlight -= 1
        machine.pongWritten()
        if machine.pongToSend() != nil {
            write()
            pongsInFlight += 1
        }
    }

    private mutating func message(_ text: String) {
        switch machine.messageReceived(Message(content: .text(text)), now: now) {
        case .deliver:
            if opened == 0 { deliveredBeforeOpen += 1 }
            if ends > 0 { deliveredAfterEnd += 1 }
        case .consume: break
        case .reply: write()
        }
    }

    private mutating func send(_ rng: inout SeededGenerator) {
        sends.send(flush: Bool.random(using: &rng), size: Int.random(in: 0...20, using: &rng))
    }

    private mutating func fire(_ timer: Machine.Timer) {
        if let deadline = armed.removeValue(forKey: timer), now < deadline { now = deadline }
        switch machine.timerFired(timer, now: now, outbound: outbound) {
        case .none: break
        case .rearm(let deadline): armed[timer] = deadline
        case .sendHeartbeat(_, let next):
            write()
            armed[.heartbeat] = next
        case .fail(let code, let deadline): perform(.fail(code: code, deadline: deadline))
        case .finishErrorBody: if let ending = machine.handshakeFailed(RealtimeError(.handshake)) { perform(ending) }
        case .end(let ending):
            if timer == .write, lastKernelProgress.duration(to: now) < Self.writeTimeout { earlyWriteTimeouts += 1 }
            perform(ending)
        }
    }

    /// Ends whatever is still running the way an application would: close, then time.
    mutating func driveToTheEnd() {
        sends.stopAccepting()
        perform(machine.closeRequested(code: 1000, reason: "", now: now))
        var guardrail = 0
        while !machine.isClosed, let timer = armed.min(by: { $0.value < $1.value })?.key, guardrail < 100 {
            fire(timer)
            guardrail += 1
        }
        if !machine.isClosed { perform(machine.streamClosed(nil)) }
    }

    // MARK: Performing actions

    /// A frame for the kernel: it takes it at once or leaves it waiting (a peer not reading).
    private mutating func write() {
        if closeFrames > 0 || ends > 0 { writesAfterClose += 1 }
        if opened == 0 { writtenBeforeOpen += 1 }
        if pendingBytes == 0 { lastKernelProgress = now }
        pendingBytes += 10
        switch machine.bytesWritten(outbound, now: now) {
        case .none: break
        case .watch(let deadline): armed[.write] = deadline
        }
    }

    private mutating func perform(_ action: Machine.ClosingAction) {
        switch action {
        case .none: break
        case .end(let ending): perform(ending)
        case .startClosing(_, _, let deadline):
            for _ in 0..<sends.closingStarted(.handshake) { write() }
            closeFrames += 1
            closeFrameInFlight = true
            stopOpenConnectionTimers()
            armed[.close] = deadline
        case .fail(let code, let deadline):
            for _ in 0..<sends.closingStarted(code == nil ? .failingAfterCloseFrame : .failing) { write() }
            if code != nil {
                closeFrames += 1
                closeFrameInFlight = true
            }
            failedAt = now
            if now.advanced(by: Self.failWriteTimeout) < deadline { failDeadlineTooLate += 1 }
            stopOpenConnectionTimers()
            armed[.close] = deadline
        case .holdForReplies(let deadline):
            // Reading stops now; sends still go out until the failure at `deadline`.
            failedAt = now
            if now.advanced(by: machine.configuration.replyWindow) < deadline { replyWindowTooLong += 1 }
            stopOpenConnectionTimers()
            armed[.close] = deadline
        }
    }

    private mutating func stopOpenConnectionTimers() {
        for timer in [Machine.Timer.heartbeat, .idle, .probe, .write] { armed[timer] = nil }
    }

    private mutating func perform(_ action: Machine.StreamClosedAction) {
        switch action {
        case .none: break
        case .finishErrorBody: if let ending = machine.handshakeFailed(RealtimeError(.handshake)) { perform(ending) }
        case .end(let ending): perform(ending)
        }
    }

    private mutating func perform(_ ending: Machine.Ending) {
        if ending.closeFrame != nil { closeFrames += 1 }
        if ending.end.requestWasDelivered != connected { wrongDeliveryFlag += 1 }
        ends += 1
        sends.ended()
        armed = [:]
    }

    // MARK: Invariants

    /// Records what is broken; false when anything is.
    func checkInvariants() -> Bool {
        let machineArmed = Dictionary(uniqueKeysWithValues: machine.deadlines.armed.map { ($0, machine.deadlines[$0]!) })
        let checks: [(Bool, String)] = [
            (closeFrames <= 1, "one close frame at most"),
            (writesAfterClose == 0, "nothing is sent after the close frame"),
            (opened <= 1, "one opened"),
            (deliveredBeforeOpen == 0 && deliveredAfterEnd == 0, "messages only between opened and the end"),
            (ends <= 1 && machine.isClosed == (ends == 1), "one end, when the machine is closed"),
            (armed == machineArmed, "the driver holds exactly the timers the machine armed: \(armed.keys) vs \(machineArmed.keys)"),
            (decodedAfterFailing == 0, "nothing is decoded once the connection failed"),
            (failDeadlineTooLate == 0, "a failing connection ends within failWriteTimeout"),
            (replyWindowTooLong == 0, "the replies to messages before a violation wait no longer than replyWindow"),
            (wrongDeliveryFlag == 0, "requestWasDelivered is true exactly when the stream connected"),
            (earlyWriteTimeouts == 0, "the write timeout ends only after a whole period without progress"),
            (writtenBeforeOpen == 0, "nothing is written before opened"),
        ] + sends.problems(ended: ends > 0).map { (false, $0) }
        for (ok, what) in checks where !ok { Issue.record(Comment(rawValue: what)) }
        return checks.allSatisfy(\.0)
    }
}
