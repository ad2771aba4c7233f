#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `consume(onFailure: .redeliver(…))` over the production SSE connection on the embedded
/// stack: a handler that throws gets the same event again after the delay (on the loop's
/// clock), the cursor moves only once it returned, and the bound ends the consumption with the
/// handler's error.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientRedeliveryTests {
    struct Refused: Error, Equatable { var delivery: Int }

    /// One handler call: the event's data and the committed cursor when it was handed over.
    struct Call: Sendable, Equatable {
        var data: String
        var cursor: String?
    }

    /// The first attempt's server, answered with an event stream, with the timers armed once
    /// it is open (so a test can wait for one more: the redelivery's delay).
    static func opened(_ t: EmbeddedClient) async throws -> (EmbeddedSSEServer, timers: Int) {
        let first = try await t.openedSSE()
        return (first, t.loop.pendingTimerCount)
    }

    @Test func aHandlerThatThrowsTwiceGetsTheSameEventThreeTimesAndTheCursorMovesAfterSuccess() async throws {
        let t = try EmbeddedClient()
        let calls = Observed<[Call]>([])
        let client = t.client
        let consumer = Task {
            try await client.consume(onFailure: .redeliver(maxDeliveries: 3, after: .seconds(2))) { event, context in
                guard case .event(let m) = event else { return }
                let failures = calls.value.filter { $0.data == m.text }.count
                calls.update { $0.append(Call(data: m.text ?? "", cursor: client.lastEventID)) }
                if m.text == "a", failures < 2 { throw Refused(delivery: failures + 1) }
                if m.text == "b" { context.stop() }
            }
        }
        let (first, timers) = try await Self.opened(t)
        first.event("a", id: "1")
        first.event("b", id: "2")
        await calls.wait("the first delivery") { $0.count == 1 }
        // Nothing is redelivered before the delay is over.
        await t.loop.waitForTimers(timers + 1)
        t.advance(by: .milliseconds(1_999))
        #expect(calls.value.count == 1)
        t.advance(by: .milliseconds(1))
        await calls.wait("the second delivery") { $0.count == 2 }
        await t.loop.waitForTimers(timers + 1)
        t.advance(by: .seconds(2))
        try await consumer.value
        #expect(calls.value == [
            Call(data: "a", cursor: nil), Call(data: "a", cursor: nil), Call(data: "a", cursor: nil),
            Call(data: "b", cursor: "1"),
        ])
        #expect(client.lastEventID == "2", "b was processed (stop after a normal return)")
        #expect(t.connectionCount == 1, "redelivery needs no new connection")
    }

    @Test func theBoundEndsTheConsumptionWithTheHandlersLastError() async throws {
        let t = try EmbeddedClient()
        let calls = Observed(0)
        let client = t.client
        let consumer = Task {
            try await client.consume(onFailure: .redeliver(maxDeliveries: 3, after: .seconds(1))) { event in
                guard case .event = event else { return }
                calls.update { $0 += 1 }
                throw Refused(delivery: calls.value)
            }
        }
        let (first, timers) = try await Self.opened(t)
        first.event("poison", id: "7")
        for delivery in 1...2 {
            await calls.wait("delivery \(delivery)") { $0 == delivery }
            await t.loop.waitForTimers(timers + 1)
            t.advance(by: .seconds(1))
        }
        await #expect(throws: Refused(delivery: 3)) { try await consumer.value }
        #expect(calls.value == 3, "three deliveries in all, then stop")
        #expect(client.lastEventID == nil, "the event was never processed")
        t.run()
        #expect(first.ended)
        if case .closed = client.state {} else { Issue.record("the client must be closed, is \(client.state)") }
    }

    @Test func theDefaultStopsAtTheFirstThrow() async throws {
        let t = try EmbeddedClient()
        let calls = Observed(0)
        let client = t.client
        let consumer = Task {
            try await client.consume { event in
                guard case .event = event else { return }
                calls.update { $0 += 1 }
                throw Refused(delivery: 1)
            }
        }
        let (first, _) = try await Self.opened(t)
        first.event("x", id: "1")
        await #expect(throws: Refused(delivery: 1)) { try await consumer.value }
        #expect(calls.value == 1)
    }

    @Test func closingDuringTheDelayDeliversNothingMore() async throws {
        let t = try EmbeddedClient()
        let calls = Observed(0)
        let client = t.client
        let consumer = Task {
            try await client.consume(onFailure: .redeliver(maxDeliveries: 5, after: .seconds(1))) { event in
                guard case .event = event else { return }
                calls.update { $0 += 1 }
                throw Refused(delivery: calls.value)
            }
        }
        let (first, timers) = try await Self.opened(t)
        first.event("x", id: "1")
        await calls.wait("the first delivery") { $0 == 1 }
        await t.loop.waitForTimers(timers + 1)
        client.close()
        t.advance(by: .seconds(1))
        await #expect(throws: Refused(delivery: 1)) { try await consumer.value }
        #expect(calls.value == 1, "close() delivers nothing more")
    }

    @Test func anUnusableBoundIsAConfigurationError() async throws {
        let t = try EmbeddedClient()
        await #expect {
            try await t.client.consume(onFailure: .redeliver(maxDeliveries: 0)) { _ in }
        } throws: { ($0 as? RealtimeError)?.code == .invalidConfiguration }
        await #expect {
            try await t.client.consume(onFailure: .redeliver(after: .seconds(-1))) { _ in }
        } throws: { ($0 as? RealtimeError)?.code == .invalidConfiguration }
    }
}
#endif
