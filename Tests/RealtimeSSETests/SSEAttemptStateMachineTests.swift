#if os(Linux)
import CCurl
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
@testable import RealtimeSSE
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The SSE attempt's decisions as tables: events in, actions out, time passed in. No curl, no
/// loop, no clock.
@Suite("SSEAttemptStateMachine", .timeLimit(.minutes(1)))
struct SSEAttemptStateMachineTests {
    typealias Machine = SSEAttemptStateMachine<ManualClock.Instant>
    static let t0 = ManualClock.Instant(offset: .zero)
    static let date = Date(timeIntervalSince1970: 1_800_000_000)

    static func machine(
        _ url: String = "http://example.test/stream", idle: Duration? = nil, maxRedirects: Int = 10,
        jsonBodyLimit: Int? = nil, method: String = "GET"
    ) -> Machine {
        var request = TransportRequest(url: URL(string: url)!)
        request.method = method
        return Machine(hop: SSEHop(request: request), configuration: Machine.Configuration(
            connectTimeout: .seconds(10), idleTimeout: idle, maxRedirects: maxRedirects, jsonBodyLimit: jsonBodyLimit,
            decodableContentCodings: ["gzip", "deflate"]))
    }

    static func at(_ seconds: Double) -> ManualClock.Instant { t0.advanced(by: .milliseconds(Int64(seconds * 1000))) }

    /// Feeds one response head; returns the verdict.
    static func head(
        _ m: inout Machine, _ status: Int, _ fields: [(String, String)] = [("Content-Type", "text/event-stream")],
        now: ManualClock.Instant = t0
    ) -> Machine.HeadAction {
        let lines = ["HTTP/1.1 \(status) X\r\n"] + fields.map { "\($0.0): \($0.1)\r\n" } + ["\r\n"]
        var ended = false
        for line in lines {
            let bytes = Array(line.utf8)
            ended = bytes.withUnsafeBytes { m.headerLineReceived($0, now: now) }
        }
        precondition(ended, "the blank line ends the head")
        return m.responseHeadEnded(status: status, now: now, date: date)
    }

    static func body(_ m: inout Machine, _ text: String, now: ManualClock.Instant = t0) -> Machine.BodyAction {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { m.bodyReceived($0.baseAddress, count: $0.count, now: now) }
    }

    static func started(_ m: Machine = machine(), now: ManualClock.Instant = t0) -> Machine {
        var m = m
        _ = m.start(now: now)
        return m
    }

    static func failure(_ code: CURLcode) -> SSETransferResult {
        SSETransferResult(failure: CurlErrorMapping.Failure(code: code, stage: .beforeRequest))
    }

    // MARK: - Start

    @Test func startArmsTheConnectDeadlineForTheRequestsHop() {
        var m = Self.machine()
        let action = m.start(now: Self.at(5))
        guard case .startTransfer(let hop, let deadline) = action else { Issue.record("\(action)"); return }
        #expect(hop.url.absoluteString == "http://example.test/stream")
        #expect(deadline == Self.at(15))
        #expect(m.deadlines.armed == [.connect])
    }

    @Test func aSetupFailureEndsNotDeliveredAndDisarmsEverything() {
        var m = Self.started()
        let end = m.setupFailed(RealtimeError(.invalidConfiguration, detail: "x"))
        #expect(end.error?.code == .invalidConfiguration)
        #expect(end.requestWasDelivered == false)
        #expect(m.isFinished)
        #expect(m.deadlines.armed.isEmpty)
    }

    // MARK: - Head verdicts

    struct Verdict: Sendable, CustomTestStringConvertible {
        let status: Int
        let fields: [(String, String)]
        let jsonBodyLimit: Int?
        /// The head's action.
        let opens: Bool?
        /// The end once the (empty) body completes cleanly: error code, or nil for a clean end.
        let code: RealtimeError.Code?
        let doNotReconnect: Bool
        var testDescription: String { "\(status) \(fields.map { "\($0.0): \($0.1)" }) json:\(jsonBodyLimit.map(String.init) ?? "-")" }
    }

    static let verdicts: [Verdict] = [
        Verdict(status: 200, fields: [("Content-Type", "text/event-stream")], jsonBodyLimit: nil, opens: true, code: nil, doNotReconnect: false),
        Verdict(status: 200, fields: [("Content-Type", "Text/Event-Stream; charset=utf-8")], jsonBodyLimit: nil, opens: true, code: nil, doNotReconnect: false),
        Verdict(status: 200, fields: [("Content-Type", "text/html")], jsonBodyLimit: nil, opens: false, code: .invalidContentType, doNotReconnect: false),
        Verdict(status: 200, fields: [], jsonBodyLimit: nil, opens: false, code: .invalidContentType, doNotReconnect: false),
        Verdict(status: 200, fields: [("Content-Type", "application/json")], jsonBodyLimit: nil, opens: false, code: .invalidContentType, doNotReconnect: false),
        Verdict(status: 204, fields: [], jsonBodyLimit: nil, opens: false, code: nil, doNotReconnect: true),
        Verdict(status: 202, fields: [], jsonBodyLimit: 1024, opens: false, code: nil, doNotReconnect: true),
        Verdict(status: 202, fields: [], jsonBodyLimit: nil, opens: false, code: .httpStatus, doNotReconnect: false),
        Verdict(status: 401, fields: [], jsonBodyLimit: nil, opens: false, code: .httpStatus, doNotReconnect: false),
        Verdict(status: 404, fields: [], jsonBodyLimit: nil, opens: false, code: .httpStatus, doNotReconnect: false),
        Verdict(status: 407, fields: [], jsonBodyLimit: nil, opens: false, code: .proxy, doNotReconnect: false),
        Verdict(status: 500, fields: [("Content-Type", "text/event-stream")], jsonBodyLimit: nil, opens: false, code: .httpStatus, doNotReconnect: false),
        Verdict(status: 503, fields: [], jsonBodyLimit: nil, opens: false, code: .httpStatus, doNotReconnect: false),
    ]

    @Test("a final head's verdict and the end it leads to", arguments: verdicts)
    func headVerdicts(_ v: Verdict) {
        var m = Self.started(Self.machine(idle: .seconds(30), jsonBodyLimit: v.jsonBodyLimit))
        let action = Self.head(&m, v.status, v.fields, now: Self.at(2))
        // An error body has a second in all, within the idle timeout; a stream the idle period.
        let readsAnErrorBody = v.code != nil
        #expect(action == .final(reportsOpened: v.opens ?? false, idleDeadline: Self.at(readsAnErrorBody ? 3 : 32)))
        #expect(m.deadlines.armed == [.idle], "the final head ends the connect timeout and starts the idle one")
        let completion = m.transferCompleted(SSETransferResult())
        switch completion {
        case .endOfStream(let end), .end(let end):
            #expect(end.error?.code == v.code)
            #expect(end.clean == (v.code == nil))
            #expect(end.doNotReconnect == v.doNotReconnect)
            if let error = end.error, v.code != .invalidContentType { #expect(error.status == v.status) }
        default:
            Issue.record("unexpected \(completion)")
        }
    }

    @Test func retryAfterSecondsAndDatesAreReadFromAnErrorHead() {
        var m = Self.started()
        _ = Self.head(&m, 503, [("Retry-After", "120")])
        guard case .end(let end) = m.transferCompleted(SSETransferResult()) else { Issue.record("no end"); return }
        #expect(end.error?.retryAfter == .seconds(120))
        var d = Self.started()
        _ = Self.head(&d, 429, [("Retry-After", "Fri, 15 Jan 2027 08:00:30 GMT")])
        guard case .end(let dated) = d.transferCompleted(SSETransferResult()) else { Issue.record("no end"); return }
        #expect(dated.error?.retryAfter == .seconds(30), "an HTTP-date counts from the wall-clock date passed in")
    }

    @Test func anErrorBodyKeepsABoundedExcerptAndStopsTheDownloadWhenFull() {
        var m = Self.started()
        _ = Self.head(&m, 500, [])
        #expect(Self.body(&m, String(repeating: "e", count: 100)) == .consume)
        #expect(Self.body(&m, String(repeating: "e", count: RealtimeError.maxBodyExcerpt)) == .stop)
        guard case .end(let end) = m.transferCompleted(Self.failure(CURLE_WRITE_ERROR)) else { Issue.record("no end"); return }
        #expect(end.error?.code == .httpStatus, "the status, not the cut, is the error")
        #expect(end.error?.bodyExcerpt?.utf8.count == RealtimeError.maxBodyExcerpt)
    }

    @Test func anUndecodableContentEncodingAbortsBeforeAnyByteIsParsed() {
        var m = Self.started()
        let action = Self.head(&m, 200, [("Content-Type", "text/event-stream"), ("Content-Encoding", "snappy")])
        #expect(action == .abort)
        guard case .end(let end) = m.transferCompleted(Self.failure(CURLE_WRITE_ERROR)) else { Issue.record("no end"); return }
        #expect(end.error?.code == .invalidContentEncoding)
        var ok = Self.started()
        #expect(Self.head(&ok, 200, [("Content-Type", "text/event-stream"), ("Content-Encoding", "x-gzip")])
            == .final(reportsOpened: true, idleDeadline: nil))
    }

    @Test func oneXXHeadsAreSkipped() {
        var m = Self.started()
        #expect(Self.head(&m, 100, []) == .proceed)
        #expect(Self.head(&m, 103, [("Link", "</a>")]) == .proceed)
        #expect(m.deadlines.armed == [.connect])
        #expect(Self.head(&m, 200) == .final(reportsOpened: true, idleDeadline: nil))
    }

    // MARK: - JSON bodies

    @Test func aJSONBodyIsOneMessageWithinItsLimit() {
        var m = Self.started(Self.machine(jsonBodyLimit: 16))
        #expect(Self.head(&m, 200, [("Content-Type", "application/problem+json")]) == .final(reportsOpened: true, idleDeadline: nil))
        #expect(Self.body(&m, "{\"a\":") == .consume)
        #expect(Self.body(&m, "1}") == .consume)
        #expect(m.transferCompleted(SSETransferResult())
            == .deliverJSON("{\"a\":1}", then: TransportEnd(clean: true, doNotReconnect: true)))
    }

    @Test func aJSONBodyOverItsLimitOrNotUTF8Fails() {
        var big = Self.started(Self.machine(jsonBodyLimit: 4))
        _ = Self.head(&big, 200, [("Content-Type", "application/json")])
        #expect(Self.body(&big, "12345") == .stop)
        guard case .end(let end) = big.transferCompleted(Self.failure(CURLE_WRITE_ERROR)) else { Issue.record("no end"); return }
        #expect(end.error?.code == .messageTooLarge)
        var bad = Self.started(Self.machine(jsonBodyLimit: 4))
        _ = Self.head(&bad, 200, [("Content-Type", "application/json")])
        let invalid: [UInt8] = [0xFF, 0xFE]
        _ = invalid.withUnsafeBytes { bad.bodyReceived($0.baseAddress, count: 2, now: Self.t0) }
        guard case .end(let badEnd) = bad.transferCompleted(SSETransferResult()) else { Issue.record("no end"); return }
        #expect(badEnd.error?.code == .invalidUTF8)
    }

    // MARK: - Redirects

    @Test("301, 302, 303, 307 and 308 are followed once the redirect's transfer completes", arguments: [301, 302, 303, 307, 308])
    func redirectsAreFollowed(_ status: Int) {
        var m = Self.started()
        #expect(Self.head(&m, status, [("Location", "/next")]) == .proceed)
        #expect(Self.body(&m, "moved") == .consume, "the redirect's body is read and dropped")
        guard case .follow(let hop) = m.transferCompleted(SSETransferResult()) else { Issue.record("not followed"); return }
        #expect(hop.url.absoluteString == "http://example.test/next")
        #expect(m.redirects == 1)
        #expect(m.deadlines.armed == [.connect], "the connect timeout covers the whole chain")
        #expect(Self.head(&m, 200) == .final(reportsOpened: true, idleDeadline: nil))
    }

    @Test func exactlyMaxRedirectsAreFollowed() {
        var m = Self.started(Self.machine(maxRedirects: 2))
        for _ in 0..<2 {
            #expect(Self.head(&m, 302, [("Location", "/again")]) == .proceed)
            guard case .follow = m.transferCompleted(SSETransferResult()) else { Issue.record("not followed"); return }
        }
        #expect(Self.head(&m, 302, [("Location", "/again")]) == .abort)
        guard case .end(let end) = m.transferCompleted(Self.failure(CURLE_WRITE_ERROR)) else { Issue.record("no end"); return }
        #expect(end.error?.code == .redirect)
        #expect(end.error?.status == 302)
        #expect(end.requestWasDelivered)
    }

    @Test func aRedirectWithoutUsableLocationFails() {
        for fields in [[], [("Location", "")], [("Location", "ftp://example.test/")]] as [[(String, String)]] {
            var m = Self.started()
            #expect(Self.head(&m, 307, fields) == .abort)
            guard case .end(let end) = m.transferCompleted(Self.failure(CURLE_WRITE_ERROR)) else { Issue.record("no end"); return }
            #expect(end.error?.code == .redirect)
        }
    }

    @Test func anEndlessRedirectBodyIsCutAndStillFollowed() {
        var m = Self.started()
        _ = Self.head(&m, 302, [("Location", "/next")])
        let chunk = String(repeating: "x", count: 16 * 1024)
        for _ in 0..<4 { #expect(Self.body(&m, chunk) == .consume) }
        #expect(Self.body(&m, "x") == .stop)
        guard case .follow = m.transferCompleted(Self.failure(CURLE_WRITE_ERROR)) else { Issue.record("not followed"); return }
        #expect(m.redirectBodyBytes == 0)
    }

    // MARK: - Completion before the head

    @Test func aFailureBeforeTheHeadSaysWhetherTheRequestWasSent() {
        var before = Self.started()
        guard case .end(let refused) = before.transferCompleted(Self.failure(CURLE_COULDNT_CONNECT)) else { Issue.record("no end"); return }
        #expect(refused.error?.code == .network)
        #expect(refused.requestWasDelivered == false)
        var after = Self.started()
        _ = after.requestStarted(now: Self.t0)
        guard case .end(let sent) = after.transferCompleted(Self.failure(CURLE_RECV_ERROR)) else { Issue.record("no end"); return }
        #expect(sent.requestWasDelivered)
        var oom = Self.started()
        _ = oom.requestStarted(now: Self.t0)
        let nothing = SSETransferResult(failure: CurlErrorMapping.Failure(code: CURLE_OUT_OF_MEMORY, stage: .beforeRequest), nothingSent: true)
        guard case .end(let unsent) = oom.transferCompleted(nothing) else { Issue.record("no end"); return }
        #expect(unsent.requestWasDelivered == false, "curl refused to build the request")
        var eof = Self.started()
        guard case .end(let early) = eof.transferCompleted(SSETransferResult()) else { Issue.record("no end"); return }
        #expect(early.error?.code == .protocolViolation)
    }

    @Test func anOpenStreamEndsCleanlyOrWithTheNetworkError() {
        var clean = Self.started()
        _ = Self.head(&clean, 200)
        #expect(clean.transferCompleted(SSETransferResult()) == .endOfStream(TransportEnd(clean: true)))
        var cut = Self.started()
        _ = Self.head(&cut, 200)
        guard case .end(let end) = cut.transferCompleted(Self.failure(CURLE_PARTIAL_FILE)) else { Issue.record("no end"); return }
        #expect(end.clean == false)
        #expect(end.error != nil)
    }

    // MARK: - Timers

    @Test func theConnectTimeoutFiresUntilTheFinalHeadAndSaysHowFarItGot() {
        var m = Self.started()
        guard case .end(let end) = m.timerFired(.connect, now: Self.at(10)) else { Issue.record("no end"); return }
        #expect(end.error?.code == .connectTimeout)
        #expect(end.error?.detail == "connect to example.test:80 timed out")
        #expect(end.requestWasDelivered == false)
        var sent = Self.started()
        _ = sent.requestStarted(now: Self.t0)
        guard case .end(let late) = sent.timerFired(.connect, now: Self.at(10)) else { Issue.record("no end"); return }
        #expect(late.requestWasDelivered)
        #expect(late.error?.detail?.hasPrefix("no response head within") == true)
        var opened = Self.started()
        _ = Self.head(&opened, 200)
        #expect(opened.timerFired(.connect, now: Self.at(10)) == .none, "disarmed by the final head")
    }

    @Test func aResponseTimeoutReplacesTheConnectDeadlineOnceTheRequestIsSent() {
        var request = TransportRequest(url: URL(string: "http://example.test/slow")!)
        request.method = "POST"
        var m = Machine(hop: SSEHop(request: request), configuration: Machine.Configuration(
            connectTimeout: .seconds(10), responseTimeout: .seconds(50)))
        _ = m.start(now: Self.t0)
        let deadline = m.requestStarted(now: Self.at(2))
        #expect(deadline == Self.at(52), "50 s from the request, not 10 s from the start")
        guard case .end(let late) = m.timerFired(.connect, now: Self.at(52)) else { Issue.record("no end"); return }
        #expect(late.error?.code == .connectTimeout)
        #expect(late.error?.detail == "no response head within 50 s")
        #expect(late.requestWasDelivered)
        // Without one the connect deadline stands, and an answer's head disarms either.
        var plain = Self.started()
        #expect(plain.requestStarted(now: Self.at(2)) == nil)
        var answered = Machine(hop: SSEHop(request: request), configuration: Machine.Configuration(responseTimeout: .seconds(50)))
        _ = answered.start(now: Self.t0)
        _ = answered.requestStarted(now: Self.at(1))
        _ = Self.head(&answered, 200, now: Self.at(40))
        #expect(answered.timerFired(.connect, now: Self.at(51)) == .none)
    }

    @Test func theIdleTimerReArmsForTheRemainderAfterBytes() {
        var m = Self.started(Self.machine(idle: .seconds(30)))
        _ = Self.head(&m, 200)
        #expect(Self.body(&m, ": ping\n", now: Self.at(20)) == .parse)
        #expect(m.timerFired(.idle, now: Self.at(30)) == .rearm(Self.at(50)))
        guard case .end(let end) = m.timerFired(.idle, now: Self.at(50)) else { Issue.record("no end"); return }
        #expect(end.error?.code == .idleTimeout)
        #expect(m.deadlines.armed.isEmpty)
    }

    @Test func aConsumerBehindIsNotSilenceAndItsCatchUpRestartsTheIdlePeriod() {
        var m = Self.started(Self.machine(idle: .seconds(30)))
        _ = Self.head(&m, 200)
        m.deliveryRefused()
        #expect(m.waitsForConsumer)
        #expect(m.timerFired(.idle, now: Self.at(30)) == .rearm(Self.at(60)), "requested, not yet paused: still not silence")
        #expect(Self.body(&m, "data: x\n\n", now: Self.at(31)) == .pause)
        #expect(m.timerFired(.idle, now: Self.at(60)) == .rearm(Self.at(90)))
        #expect(m.consumerDemand(now: Self.at(100)) == .resumeTransfer)
        #expect(m.consumerDemand(now: Self.at(100)) == .none, "already reading")
        #expect(m.timerFired(.idle, now: Self.at(110)) == .rearm(Self.at(130)), "the idle period counts from the catch-up")
        guard case .end = m.timerFired(.idle, now: Self.at(130)) else { Issue.record("no end"); return }
    }

    @Test func demandWithoutAPauseOnlyClearsTheRequest() {
        var m = Self.started()
        _ = Self.head(&m, 200)
        m.deliveryRefused()
        #expect(m.consumerDemand(now: Self.at(1)) == .none)
        #expect(!m.waitsForConsumer)
        #expect(Self.body(&m, "data: x\n\n") == .parse)
    }

    @Test func theProbeTightensTheIdleTimeoutUntilTheNextByte() {
        var m = Self.started(Self.machine(idle: .seconds(60)))
        _ = Self.head(&m, 200)
        #expect(m.verifyRequested(within: .seconds(5), now: Self.at(10)) == .armProbe(deadline: Self.at(15)))
        guard case .end(let end) = m.timerFired(.probe, now: Self.at(15)) else { Issue.record("no end"); return }
        #expect(end.error?.code == .idleTimeout)
        #expect(end.error?.detail?.contains("after the network path changed") == true)

        var alive = Self.started(Self.machine(idle: .seconds(60)))
        _ = Self.head(&alive, 200)
        _ = alive.verifyRequested(within: .seconds(5), now: Self.at(10))
        _ = Self.body(&alive, ": ping\n", now: Self.at(12))
        #expect(alive.timerFired(.probe, now: Self.at(15)) == .none, "a byte came: the normal idle timeout applies again")
        #expect(alive.deadlines.armed == [.idle])
        #expect(alive.deadlines.idle == Self.at(60))
    }

    @Test func aProbeIsANoOpBeforeTheStreamOpensAndIgnoresAConsumerBehind() {
        var connecting = Self.started()
        #expect(connecting.verifyRequested(within: .seconds(1), now: Self.t0) == .none)
        var error = Self.started()
        _ = Self.head(&error, 500, [])
        #expect(error.verifyRequested(within: .seconds(1), now: Self.t0) == .none)
        var behind = Self.started()
        _ = Self.head(&behind, 200)
        _ = behind.verifyRequested(within: .seconds(5), now: Self.t0)
        behind.deliveryRefused()
        #expect(behind.timerFired(.probe, now: Self.at(5)) == .none)
    }

    @Test func aLaterProbeReplacesTheEarlierOne() {
        var m = Self.started()
        _ = Self.head(&m, 200)
        _ = m.verifyRequested(within: .seconds(5), now: Self.t0)
        #expect(m.verifyRequested(within: .seconds(5), now: Self.at(3)) == .armProbe(deadline: Self.at(8)))
        #expect(m.deadlines.probe == Self.at(8))
    }

    // MARK: - Close, abort and stale events

    enum Stage: String, CaseIterable, Sendable {
        case connecting, requestSent, redirecting, open, errorBody, noContent, jsonBody, paused
    }

    static func machine(at stage: Stage) -> Machine {
        var m = started(machine(idle: .seconds(30), jsonBodyLimit: stage == .jsonBody ? 100 : nil))
        switch stage {
        case .connecting: break
        case .requestSent: _ = m.requestStarted(now: Self.t0)
        case .redirecting: _ = head(&m, 307, [("Location", "/b")])
        case .open: _ = head(&m, 200)
        case .errorBody: _ = head(&m, 500, [])
        case .noContent: _ = head(&m, 204, [])
        case .jsonBody: _ = head(&m, 200, [("Content-Type", "application/json")])
        case .paused:
            _ = head(&m, 200)
            m.deliveryRefused()
            _ = body(&m, "data: x\n\n")
        }
        return m
    }

    @Test("close in every phase: one end, cancelled, every timer disarmed; then every event is ignored", arguments: Stage.allCases)
    func closeInEveryPhase(_ stage: Stage) {
        var m = Self.machine(at: stage)
        let end = m.closeRequested()
        #expect(end?.error?.code == .cancelled)
        #expect(end?.requestWasDelivered == (stage != .connecting))
        #expect(m.deadlines.armed.isEmpty)
        #expect(m.closeRequested() == nil, "a second close is a no-op")
        for timer in Machine.Timer.allCases { #expect(m.timerFired(timer, now: Self.at(1000)) == .none) }
        #expect(Self.body(&m, "data: late\n\n") == .consume, "a chunk after the end is dropped")
        #expect(m.transferCompleted(SSETransferResult()) == .none)
        #expect(m.consumerDemand(now: Self.at(1)) == .none)
        #expect(m.verifyRequested(within: .seconds(1), now: Self.at(1)) == .none)
        let line = Array("X: y\r\n".utf8)
        #expect(line.withUnsafeBytes { m.headerLineReceived($0, now: Self.at(1)) } == false)
        m.deliveryRefused()
        _ = m.requestStarted(now: Self.t0)
        m.parserFailed(RealtimeError(.internal, detail: "late"))
        #expect(m.isFinished)
        #expect(!m.waitsForConsumer)
    }

    @Test func aTimerThatFiresAfterItWasReplacedOrDisarmedIsIgnored() {
        var m = Self.started(Self.machine(idle: .seconds(30)))
        #expect(m.timerFired(.idle, now: Self.at(1)) == .none, "not armed before the head")
        #expect(m.timerFired(.probe, now: Self.at(1)) == .none)
        _ = Self.head(&m, 200)
        _ = m.timerFired(.idle, now: Self.at(30)) // ends: no byte for 30 s
        #expect(m.isFinished)
        #expect(m.timerFired(.idle, now: Self.at(60)) == .none)
    }

    /// Seeded random event sequences: whatever the order, at most one end, no timer armed
    /// after it, and nothing but `.none` afterwards.
    @Test func randomEventSequencesEndAtMostOnce() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            var m = Self.started(Self.machine(idle: .seconds(5), maxRedirects: 1, jsonBodyLimit: Bool.random(using: &rng) ? 8 : nil))
            var now = Self.t0
            var ends = 0
            for _ in 0..<20 {
                now = now.advanced(by: .milliseconds(Int64.random(in: 0...4000, using: &rng)))
                var ended = false
                switch Int.random(in: 0..<9, using: &rng) {
                case 0 where !m.isFinished && m.phase == .connecting:
                    let status = [100, 200, 204, 302, 404].randomElement(using: &rng)!
                    let action = Self.head(&m, status, [("Content-Type", "text/event-stream"), ("Location", "/r")], now: now)
                    #expect(action != .abort || m.abortReason != nil)
                case 1: _ = Self.body(&m, "data: x\n\n", now: now)
                case 2: m.deliveryRefused()
                case 3: _ = m.consumerDemand(now: now)
                case 4: _ = m.verifyRequested(within: .seconds(1), now: now)
                case 5:
                    let timer = Machine.Timer.allCases.randomElement(using: &rng)!
                    if case .end = m.timerFired(timer, now: now) { ended = true }
                case 6:
                    switch m.transferCompleted(Bool.random(using: &rng) ? SSETransferResult() : Self.failure(CURLE_RECV_ERROR)) {
                    case .end, .endOfStream, .deliverJSON: ended = true
                    case .follow, .none: break
                    }
                case 7: if m.closeRequested() != nil { ended = true }
                default: _ = m.requestStarted(now: Self.t0)
                }
                if ended { ends += 1 }
                if m.isFinished { #expect(m.deadlines.armed.isEmpty) }
            }
            #expect(ends <= 1)
            #expect(m.isFinished == (ends == 1))
        }
    }
}
#endif
