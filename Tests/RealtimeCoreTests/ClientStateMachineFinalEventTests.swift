import Foundation
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import Testing

/// The last event of a finished stream never says that another attempt follows, whichever
/// way the client comes to stop: each row drives the state machine to its end and checks the
/// whole transcript and its last event.
@Suite(.timeLimit(.minutes(1))) struct ClientStateMachineFinalEventTests {
    typealias Configuration = ClientStateMachine.Configuration

    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        var change: @Sendable (inout Configuration) -> Void = { _ in }
        var drive: @Sendable (inout ClientStateMachineHarness) -> Void
        var summary: String
        var testDescription: String { name }
    }

    static let noContent = TransportEnd(clean: true, doNotReconnect: true)
    static let up = NetworkStatus(reachability: .reachable, pathGeneration: 1)
    static let down = NetworkStatus(reachability: .unreachable, pathGeneration: 2)
    static let back = NetworkStatus(reachability: .reachable, pathGeneration: 3)

    static let rows: [Row] = [
        Row(name: "204 on the first attempt: nothing was promised", drive: { h in
            h.start(); h.make(); h.end(noContent)
        }, summary: ""),
        Row(name: "204 answering the resume after a clean end", drive: { h in
            h.start(); h.make(); h.open(); h.messages(["1"]); h.endCleanly()
            h.fireTimer(); h.make(); h.end(noContent)
        }, summary: "open(1) event(1) closed(reconnect) error(stream_ended,stop)"),
        Row(name: "204 after a retried 503", drive: { h in
            h.start(); h.make(); h.fail(.httpStatus(503))
            h.fireTimer(); h.make(); h.end(noContent)
        }, summary: "error(http_status,retry) error(stream_ended,stop)"),
        Row(name: "204 after the network came back", change: { $0.monitorsNetwork = true }, drive: { h in
            h.start(network: up); h.make(); h.open(); h.network(down); h.end()
            h.network(back); h.make(); h.end(noContent)
        }, summary: "open(1) error(unreachable,retry) closed(reconnect) error(stream_ended,stop)"),
        Row(name: "204 after a suspend and resume", drive: { h in
            h.start(); h.make(); h.open(); h.suspend(); h.end()
            h.resume(); h.make(); h.end(noContent)
        }, summary: "open(1) closed(reconnect) error(stream_ended,stop)"),
        Row(name: "204 after a circuit breaker's cool-down", change: {
            $0.reconnect.circuitBreaker = CircuitBreaker(failureThreshold: 1, coolDown: .seconds(60))
        }, drive: { h in
            h.start(); h.make(); h.fail(.httpStatus(500))
            h.fireTimer(); h.make(); h.end(noContent)
        }, summary: "error(circuit_open,retry) error(stream_ended,stop)"),
        Row(name: "204 after a retry-budget booking", change: { $0.sharesRetryBudget = true }, drive: { h in
            h.start(); h.make(); h.open(); h.endCleanly()
            h.reserved(.seconds(2)); h.fireTimer(); h.admitted(wait: .zero); h.make(); h.end(noContent)
        }, summary: "open(1) closed(reconnect) error(stream_ended,stop)"),
        Row(name: "attempts exhausted after a clean end", change: { $0.reconnect = .limited(maxAttempts: 2) }, drive: { h in
            h.start(); h.make(); h.open(); h.endCleanly()
            h.fireTimer(); h.make(); h.fail(.httpStatus(503))
        }, summary: "open(1) closed(reconnect) error(retries_exhausted,stop)"),
        Row(name: "a POST not repeated after a retried refusal", change: { $0.requestIsRepeatable = false }, drive: { h in
            h.start(); h.make(); h.fail(RealtimeError(.network), delivered: false)
            h.fireTimer(); h.make(); h.open(); h.fail(RealtimeError(.network))
        }, summary: "error(network,retry) open(2) error(request_not_repeatable,stop) closed(final)"),
        Row(name: "a finite stream's clean end after a reconnect", change: { $0.reconnect = .finite }, drive: { h in
            h.start(); h.make(); h.open(); h.fail(RealtimeError(.network))
            h.fireTimer(); h.make(); h.open(); h.endCleanly()
        }, summary: "open(1) error(network,retry) closed(reconnect) open(2) closed(final)"),
        Row(name: "a terminator after a reconnect", change: { $0.reconnect = .finite; $0.hasTerminator = true }, drive: { h in
            h.start(); h.make(); h.open(); h.fail(RealtimeError(.network))
            h.fireTimer(); h.make(); h.open(); h.terminator()
        }, summary: "open(1) error(network,retry) closed(reconnect) open(2) closed(final)"),
        Row(name: "a second 401 after a refresh", change: { $0.refreshesCredentials = true }, drive: { h in
            h.start(); h.make(); h.fail(.httpStatus(401)); h.make(); h.fail(.httpStatus(401))
        }, summary: "error(http_status,retry) error(unauthorized,stop)"),
        Row(name: "a fatal status after a clean end", drive: { h in
            h.start(); h.make(); h.open(); h.endCleanly()
            h.fireTimer(); h.make(); h.fail(.httpStatus(404))
        }, summary: "open(1) closed(reconnect) error(http_status,stop)"),
    ]

    @Test(arguments: rows) func theLastEventOfAFinishedStreamPromisesNoReconnect(_ row: Row) {
        var c = Configuration(backoff: .exponential(jitter: .none), waitsForConsumer: false)
        row.change(&c)
        var h = ClientStateMachineHarness(c)
        row.drive(&h)
        #expect(h.finished, "the client stopped")
        #expect(h.summary == row.summary)
        #expect(h.events.last.map(Self.promisesReconnect) != true, "\(h.summary)")
    }

    @Test func theWithdrawnPromiseNamesTheServersAnswer() {
        var h = ClientStateMachineHarness(Configuration(backoff: .exponential(jitter: .none), waitsForConsumer: false))
        h.start(); h.make(); h.open(); h.endCleanly()
        h.fireTimer(); h.make(); h.end(Self.noContent)
        let last = h.events.last?.errorEvent
        #expect(last == ErrorEvent(
            error: RealtimeError(.streamEnded, detail: "the server asked not to reconnect", status: 204),
            willRetry: false, retryIn: nil, attempt: 2))
        #expect(last?.error.description == "stream_ended (204): the server asked not to reconnect")
        #expect(h.snapshot == .closed(nil), "an orderly end, not a failure")
        #expect(h.machine.statistics.errorsByClass.isEmpty, "not counted as a failure")
    }

    static func promisesReconnect(_ event: ClientEvent) -> Bool {
        switch event {
        case .error(let e): return e.willRetry
        case .closed(let c): return c.willReconnect
        case .open, .event: return true  // a finished stream ends on an error or a closed
        }
    }
}
