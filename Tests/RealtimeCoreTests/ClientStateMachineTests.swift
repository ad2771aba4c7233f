import Foundation
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import Testing

/// The client's decisions, step by step, with no I/O: each test feeds events to the state
/// machine through ``ClientStateMachineHarness`` and checks the actions and emitted events.
@Suite(.timeLimit(.minutes(1))) struct ClientStateMachineTests {
    typealias Configuration = ClientStateMachine.Configuration

    /// Exact delays (1 s, 2 s, 4 s, …): no jitter. Reconnects do not wait for the consumer
    /// unless a test turns exact resume on.
    static func configuration(_ change: (inout Configuration) -> Void = { _ in }) -> Configuration {
        var c = Configuration(backoff: .exponential(jitter: .none), waitsForConsumer: false)
        change(&c)
        return c
    }

    @Test func firstAttemptConnectsAtOnceWithTheConfiguredCursor() {
        var h = ClientStateMachineHarness(Self.configuration { $0.cursor = "41"; $0.waitsForConsumer = true })
        #expect(h.snapshot == .idle)
        h.start()
        #expect(h.plans == [.init(attempt: 1, cursor: "41", credentialsRejected: false)])
        #expect(h.snapshot == .connecting(attempt: 1))
        h.make()
        h.open()
        #expect(h.summary == "open(1)")
        guard case .open(let info) = h.snapshot else { Issue.record("not open: \(h.snapshot)"); return }
        #expect(info.attempt == 1 && info.attemptInOutage == 1)
    }

    @Test func failureBacksOffThenReconnectsWithTheProcessedCursor() {
        var h = ClientStateMachineHarness(Self.configuration { $0.waitsForConsumer = true })
        h.start()
        h.make()
        h.open()
        h.messages(["1", "2"])
        h.fail(RealtimeError(.network))
        #expect(h.summary == "open(1) event(1) event(2) error(network,retry) closed(reconnect)")
        #expect(h.events[3].errorEvent?.retryIn == .seconds(1))
        #expect(h.timer?.deadline == .seconds(1))
        #expect(h.snapshot == .waitingToRetry(until: .seconds(1)))
        // The delay passes, but the consumer has not processed what it got: no attempt yet.
        h.fireTimer()
        #expect(h.plans.count == 1, "exact resume: wait for the consumer")
        #expect(h.take()?.short == "open(1)")
        #expect(h.take()?.short == "event(1)")
        #expect(h.take()?.short == "event(2)")
        #expect(h.ledger.cursor == "1", "event 2 is handed over, not processed")
        #expect(h.machine.consumer.cursor == nil, "the machine hears of it when the consumer drains or acknowledges")
        h.drain()
        #expect(h.ledger.cursor == "2" && h.machine.consumer.cursor == "2")
        #expect(h.saved == ["1", "2"])
        #expect(h.plans.last == .init(attempt: 2, cursor: "2", credentialsRejected: false))
    }

    @Test func withoutExactResumeTheReconnectDoesNotWaitForTheConsumer() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start()
        h.make()
        h.open()
        h.messages([nil])
        h.fail(RealtimeError(.network))
        h.fireTimer()
        #expect(h.plans.count == 2)
    }

    /// Rows of the failure-class table as the machine applies them.
    @Test(arguments: [
        (RealtimeError(.network), true), (.httpStatus(503), true), (.httpStatus(429), true),
        (RealtimeError(.idleTimeout), true), (.protocolViolation("x"), true),
        (.httpStatus(404), false), (RealtimeError(.tls), false), (RealtimeError(.eventTooLarge), false),
        (RealtimeError(.invalidContentType), false),
    ])
    func failureClasses(_ error: RealtimeError, retried: Bool) {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start()
        h.make()
        h.fail(error)
        #expect(h.summary == "error(\(error.code),\(retried ? "retry" : "stop"))")
        #expect(h.finished == !retried)
        #expect((h.timer != nil) == retried)
        if !retried {
            #expect(h.snapshot == .closed(error))
            #expect(!h.observing)
        }
    }

    @Test func noContentEndsWithoutAnyEvent() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start()
        h.make()
        h.end(TransportEnd(clean: true, doNotReconnect: true))
        #expect(h.summary == "")
        #expect(h.finished)
        #expect(h.snapshot == .closed(nil))
    }

    @Test func cleanEndReconnectsUnlessFinite() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.open(); h.endCleanly()
        #expect(h.summary == "open(1) closed(reconnect)")
        var f = ClientStateMachineHarness(Self.configuration { $0.reconnect = .finite })
        f.start(); f.make(); f.open(); f.endCleanly()
        #expect(f.summary == "open(1) closed(final)")
        #expect(f.finished && f.snapshot == .closed(nil))
    }

    @Test func maxAttemptsStopsWithTheCause() {
        var h = ClientStateMachineHarness(Self.configuration { $0.reconnect = .limited(maxAttempts: 2) })
        h.start(); h.make(); h.fail(.httpStatus(503))
        h.fireTimer(); h.make(); h.fail(.httpStatus(503))
        let last = h.events.last?.errorEvent
        #expect(last?.error.code == .retriesExhausted && last?.willRetry == false && last?.retryIn == nil)
        #expect(h.machine.statistics.errorsByClass == [.http: 2], "the cause's class is counted")
    }

    @Test func unauthorizedRefreshesOnceAtOnce() {
        var h = ClientStateMachineHarness(Self.configuration { $0.refreshesCredentials = true })
        h.start(); h.make(); h.fail(.httpStatus(401))
        #expect(h.events.last?.errorEvent?.retryIn == .zero)
        #expect(h.timer == nil)
        #expect(h.plans.last == .init(attempt: 2, cursor: nil, credentialsRejected: true))
        h.make(); h.fail(.httpStatus(401))
        #expect(h.summary == "error(http_status,retry) error(unauthorized,stop)")
    }

    /// The refresh is once until a connection opens: another failure in between does not
    /// earn a second one, and an open connection does.
    @Test func aSecondUnauthorizedBeforeAnOpenStopsWhateverCameBetween() {
        var h = ClientStateMachineHarness(Self.configuration { $0.refreshesCredentials = true })
        h.start(); h.make(); h.fail(.httpStatus(401))
        h.make(); h.fail(.httpStatus(503))
        h.fireTimer(); h.make(); h.fail(.httpStatus(401))
        #expect(h.summary == "error(http_status,retry) error(http_status,retry) error(unauthorized,stop)")

        var reopened = ClientStateMachineHarness(Self.configuration { $0.refreshesCredentials = true })
        reopened.start(); reopened.make(); reopened.fail(.httpStatus(401))
        reopened.make(); reopened.open(); reopened.fail(RealtimeError(.network))
        reopened.fireTimer(); reopened.make(); reopened.fail(.httpStatus(401))
        #expect(reopened.plans.last == .init(attempt: 4, cursor: nil, credentialsRejected: true))
    }

    @Test func failedPreparationCountsAnAttemptAndIsDecidedByPolicy() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start()
        h.failToStart(RealtimeError(.network, detail: "token endpoint down"))
        #expect(h.summary == "error(network,retry)")
        #expect(h.machine.statistics.attempts == 0, "no transport was started")
        h.fireTimer()
        #expect(h.plans.last?.attempt == 2)
    }

    @Test func serverRetryHintAndRetryAfter() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.open()
        h.hint(.seconds(5))
        h.fail(RealtimeError(.network))
        #expect(h.events.at(1)?.errorEvent?.retryIn == .seconds(5))
        h.drain(); h.fireTimer(); h.make()
        h.fail(.httpStatus(503, retryAfter: .seconds(20)))
        #expect(h.events.last?.errorEvent?.retryIn == .seconds(20))
    }

    @Test func circuitBreakerCoolsDown() {
        var h = ClientStateMachineHarness(Self.configuration {
            $0.reconnect.circuitBreaker = CircuitBreaker(failureThreshold: 2, coolDown: .seconds(60))
        })
        h.start(); h.make(); h.fail(.httpStatus(500))
        h.fireTimer(); h.make(); h.fail(.httpStatus(500))
        let open = h.events.last?.errorEvent
        #expect(open?.error.code == .circuitOpen && open?.willRetry == true && open?.retryIn == .seconds(60))
        #expect(open?.error.underlying?.status == 500, "the cause stays reachable")
    }

    @Test func stableConnectionResetsTheBackoff() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.open()
        h.now += .seconds(10)
        h.fail(RealtimeError(.network))
        #expect(h.events.compactMap(\.errorEvent).map(\.retryIn) == [.seconds(1), .seconds(2), .seconds(1)])
    }

    @Test func resetOnEveryOpen() {
        var h = ClientStateMachineHarness(Self.configuration { $0.backoff = .exponential(jitter: .none, resetAfter: .zero) })
        h.start(); h.make(); h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.open()
        h.fail(RealtimeError(.network))  // at once: with the default rule this would wait 4 s
        #expect(h.events.compactMap(\.errorEvent).map(\.retryIn) == [.seconds(1), .seconds(2), .seconds(1)])
    }

    @Test func snapshotsFollowTheClient() {
        var h = ClientStateMachineHarness(Self.configuration { $0.monitorsNetwork = true })
        #expect(h.snapshot == .idle)
        h.start(network: Self.up)
        #expect(h.snapshot == .connecting(attempt: 1))
        h.make(); h.open()
        guard case .open = h.snapshot else { Issue.record("\(h.snapshot)"); return }
        h.fail(RealtimeError(.network))
        #expect(h.snapshot == .waitingToRetry(until: .seconds(1)))
        h.network(Self.down)
        #expect(h.snapshot == .waitingForNetwork)
        h.suspend()
        #expect(h.snapshot == .suspended)
        h.close()
        #expect(h.snapshot == .closed(.cancelled))
    }

    @Test func attemptsAreCountedInTotalAndPerOutage() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.open()
        h.fail(RealtimeError(.network)); h.drain()
        for _ in 0..<2 {
            h.fireTimer(); h.make(); h.fail(RealtimeError(.network)); h.drain()
        }
        h.fireTimer(); h.make(); h.open()
        guard case .open(let info) = h.snapshot else { Issue.record("not open"); return }
        #expect(info.attempt == 4, "the fourth attempt of the client's life")
        #expect(info.attemptInOutage == 3, "the third attempt since the connection was lost")
    }

    // MARK: Suspend, close

    @Test func suspendClosesTheLiveConnectionAndResumeConnectsAtOnce() {
        var h = ClientStateMachineHarness(Self.configuration { $0.waitsForConsumer = true })
        h.start(); h.make(); h.open(); h.messages(["1"])
        h.suspend()
        #expect(h.transport == .closing)
        #expect(h.snapshot == .suspended)
        h.end()
        #expect(h.summary == "open(1) event(1) closed(reconnect)")
        #expect(h.events.last?.closeEvent?.clean == true)
        h.drain()
        #expect(h.plans.count == 1, "no attempt while suspended")
        #expect(h.timer == nil)
        h.resume()
        #expect(h.plans.last == .init(attempt: 2, cursor: "1", credentialsRejected: false))
    }

    @Test func resumeBeforeTheSuspendedAttemptEndedIsNotAFailure() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.open()
        h.suspend(); h.resume()
        h.end()  // the `cancelled` end of the suspend's close
        #expect(h.summary == "open(1) closed(reconnect)", "not a stop with `cancelled`")
        h.drain()
        #expect(h.plans.count == 2)
    }

    @Test func suspendDuringBackoffDisarmsTheTimer() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.fail(RealtimeError(.network))
        #expect(h.timer != nil)
        h.suspend()
        #expect(h.timer == nil)
        h.now += .seconds(60)
        #expect(h.plans.count == 1)
        h.resume()
        #expect(h.plans.count == 2)
    }

    @Test func suspendWhilePreparingDiscardsTheTransport() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start()
        h.suspend()
        h.make()
        #expect(h.transportAttempt == nil, "discarded, never started")
        #expect(h.machine.statistics.attempts == 0)
        h.resume()
        #expect(h.plans.count == 2)
    }

    @Test func closeStopsEverythingAndNothingFollows() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.open()
        h.close()
        #expect(h.transport == .closing && h.terminated && !h.observing)
        #expect(h.snapshot == .closed(.cancelled))
        h.messages(["late"])
        h.end()
        #expect(h.summary == "open(1)")
        #expect(h.logs.map(\.message).last == "closed by the application")
    }

    @Test func closeDuringBackoffCancelsTheTimer() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.fail(RealtimeError(.network))
        h.close()
        #expect(h.timer == nil)
        #expect(h.machine.timerFired(1, now: .seconds(5)).ignored == .clientDone)
    }

    // MARK: Reachability

    static let down = NetworkStatus(reachability: .unreachable, pathGeneration: 1)
    static let up = NetworkStatus(reachability: .reachable, pathGeneration: 2)

    @Test func unreachableAtStartWaitsAndAnnouncesOnce() {
        var h = ClientStateMachineHarness(Self.configuration { $0.monitorsNetwork = true })
        h.start(network: Self.down)
        #expect(h.summary == "error(unreachable,retry)")
        #expect(h.events.first?.errorEvent?.retryIn == nil)
        #expect(h.plans.isEmpty)
        #expect(h.snapshot == .waitingForNetwork)
        h.network(NetworkStatus(reachability: .unreachable, pathGeneration: 2))
        #expect(h.events.count == 1)
        h.network(NetworkStatus(reachability: .reachable, pathGeneration: 3))
        #expect(h.plans.count == 1 && h.timer == nil, "connects at once")
    }

    @Test func networkLossMidStreamAbortsReportsOnceAndWaits() {
        var h = ClientStateMachineHarness(Self.configuration { $0.monitorsNetwork = true; $0.waitsForConsumer = true })
        h.start(network: Self.up); h.make(); h.open(); h.messages(["1"])
        h.network(Self.down)
        #expect(h.transport == .aborting)
        h.end()
        #expect(h.summary == "open(1) event(1) error(unreachable,retry) closed(reconnect)")
        h.drain()
        #expect(h.plans.count == 1 && h.timer == nil, "no attempt, no timer while down")
        h.network(Self.up)
        #expect(h.plans.last?.cursor == "1")
        #expect(h.events.count == 4, "one unreachable error for the outage")
        #expect(h.machine.statistics.errorsByClass == [.unreachable: 1])
    }

    @Test func outageDuringBackoffSpendsNoAttemptAndResetsTheBackoff() {
        var h = ClientStateMachineHarness(Self.configuration {
            $0.monitorsNetwork = true
            $0.reconnect = .limited(maxAttempts: 3)
        })
        h.start(network: Self.up); h.make(); h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.fail(RealtimeError(.network))
        h.network(Self.down)
        #expect(h.timer == nil)
        for g in 3..<13 {
            h.network(NetworkStatus(reachability: .unreachable, pathGeneration: UInt64(g)))
        }
        h.network(NetworkStatus(reachability: .reachable, pathGeneration: 13))
        #expect(h.plans.count == 3, "the return connects at once")
        h.make(); h.fail(RealtimeError(.network))
        let last = h.events.last?.errorEvent
        #expect(last?.willRetry == true && last?.retryIn == .seconds(1), "a fresh backoff; outages spent no attempt")
    }

    @Test func pathChangeVerifiesTheLiveConnection() {
        var h = ClientStateMachineHarness(Self.configuration {
            $0.monitorsNetwork = true
            $0.pathChangeProbeTimeout = .seconds(3)
        })
        h.start(network: Self.up)
        h.network(NetworkStatus(reachability: .reachable, pathGeneration: 3))
        #expect(h.verifications.isEmpty, "nothing to verify while preparing")
        h.make(); h.open()
        h.network(NetworkStatus(reachability: .reachable, pathGeneration: 4))
        #expect(h.verifications == [.seconds(3)])
    }

    @Test func networkLossWhilePreparingDiscardsTheAttempt() {
        var h = ClientStateMachineHarness(Self.configuration { $0.monitorsNetwork = true })
        h.start(network: Self.up)
        h.network(Self.down)
        h.make()
        #expect(h.transportAttempt == nil)
        #expect(h.summary == "error(unreachable,retry)")
        h.network(Self.up)
        #expect(h.plans.count == 2)
    }

    // MARK: Retry budget

    @Test func reconnectsBookAndAdmitThroughTheBudget() {
        var h = ClientStateMachineHarness(Self.configuration { $0.sharesRetryBudget = true })
        h.start()
        #expect(h.reserveRequests.isEmpty && !h.pendingAdmit, "first connections are not limited")
        h.make(); h.fail(RealtimeError(.network))
        #expect(h.reserveRequests == [.seconds(1)])
        #expect(h.events.isEmpty, "retryIn waits for the booking")
        h.reserved(.seconds(4))
        #expect(h.events.first?.errorEvent?.retryIn == .seconds(4))
        h.fireTimer()
        #expect(h.pendingAdmit)
        h.admitted(wait: .milliseconds(500))
        #expect(h.plans.count == 1, "held back by admission")
        h.fireTimer()
        #expect(h.plans.count == 2)
    }

    @Test func admissionWokenLateAsksAgainAtMostThreeTimes() {
        var h = ClientStateMachineHarness(Self.configuration { $0.sharesRetryBudget = true })
        h.start(); h.make(); h.fail(RealtimeError(.network)); h.reserved(.seconds(1)); h.fireTimer()
        for _ in 0..<3 {
            h.admitted(wait: .milliseconds(10))
            h.now += .seconds(1)  // woken far too late
            h.fireTimer()
        }
        #expect(h.plans.count == 2)
    }

    /// `restart()` while the retry's slot is being booked (the client reports waiting to
    /// retry) is not lost: when the budget answers, the wait is cut short and counted as a
    /// restart, and the attempt goes through admission at once.
    @Test func restartWhileTheSlotIsBookedCutsTheWaitShort() {
        var h = ClientStateMachineHarness(Self.configuration { $0.sharesRetryBudget = true })
        h.start(); h.make(); h.open(); h.fail(RealtimeError(.network))
        #expect(h.pendingReserve == .seconds(1))
        h.restart()
        #expect(h.machine.statistics.restarts == 0, "counted when it takes effect")
        h.reserved(.seconds(4))
        #expect(h.events.compactMap(\.errorEvent).last?.retryIn == .zero)
        #expect(h.machine.statistics.restarts == 1)
        #expect(h.logs.contains { $0.message == "restart requested" })
        #expect(h.pendingAdmit && h.timer == nil, "no wait: admission is asked at once")
        h.admitted(wait: .zero)
        #expect(h.plans.count == 2)
    }

    @Test func resumeBooksAFreshSlot() {
        var h = ClientStateMachineHarness(Self.configuration { $0.sharesRetryBudget = true })
        h.start(); h.make(); h.fail(RealtimeError(.network)); h.reserved(.seconds(1))
        h.suspend(); h.resume()
        #expect(h.reserveRequests == [.seconds(1), .zero])
        h.reserved(.seconds(2))
        #expect(h.logs.contains { $0.message == "waiting for the shared retry budget" })
        h.fireTimer(); h.admitted(wait: .zero)
        #expect(h.plans.count == 2)
    }

    // MARK: End of stream

    @Test func terminatorFinishesAtOnce() {
        var h = ClientStateMachineHarness(Self.configuration { $0.reconnect = .finite; $0.hasTerminator = true })
        h.start(); h.make(); h.open(); h.messages(["a"])
        h.terminator()
        #expect(h.transport == .closing, "the connection is closed, the server may hold it open")
        #expect(h.summary == "open(1) event(a) closed(final)")
        #expect(h.events.last?.closeEvent == CloseEvent(clean: true, willReconnect: false))
        #expect(h.finished && h.snapshot == .closed(nil))
        h.messages(["after"])
        h.end()
        #expect(h.events.count == 3, "nothing after the terminator")
    }

    @Test func finiteStreamWithoutItsTerminatorIsTruncated() {
        var h = ClientStateMachineHarness(Self.configuration { $0.reconnect = .finite; $0.hasTerminator = true })
        h.start(); h.make(); h.open(); h.messages(["a"])
        h.endCleanly()
        #expect(h.summary == "open(1) event(a) error(truncated,stop) closed(final)")
        #expect(h.events[2].errorEvent?.retryIn == nil)
        #expect(h.plans.count == 1)
    }

    @Test func cursorLoadedBeforeTheFirstAttempt() {
        var h = ClientStateMachineHarness(Self.configuration { $0.loadsCursor = true })
        h.start()
        #expect(h.loadRequested && h.plans.isEmpty)
        h.loaded("9")
        #expect(h.plans.first?.cursor == "9")
    }
}

extension Array {
    func at(_ index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
