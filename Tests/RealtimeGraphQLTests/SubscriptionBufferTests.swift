@testable import RealtimeGraphQL
import Testing

/// The buffer between the router and a subscription's iterator, through its channel: order,
/// the bound (the producer waits), the end after what is buffered, an error thrown once,
/// cancel dropping what is buffered and releasing a waiting producer.
@Suite(.timeLimit(.minutes(1))) struct SubscriptionBufferTests {
    struct Failure: Error {}

    @Test func elementsComeInOrderThenTheEnd() async throws {
        let channel = SubscriptionChannel<Int>(capacity: 4)
        for i in 1...3 { #expect(await channel.push(i)) }
        channel.finish()
        #expect(await channel.push(9) == false, "nothing after the end")
        var seen: [Int] = []
        while let i = try await channel.next() { seen.append(i) }
        #expect(seen == [1, 2, 3])
        #expect(try await channel.next() == nil)
    }

    @Test func aFullBufferHoldsTheProducerUntilTheConsumerTakesOne() async throws {
        let channel = SubscriptionChannel<Int>(capacity: 2)
        #expect(await channel.push(1))
        #expect(await channel.push(2))
        let third = Task { await channel.push(3) }
        #expect(try await channel.next() == 1)
        #expect(await third.value)
        #expect(channel.count == 2)
        #expect(try await channel.next() == 2)
        #expect(try await channel.next() == 3)
    }

    @Test func anErrorIsThrownAfterWhatIsBufferedAndOnlyOnce() async throws {
        let channel = SubscriptionChannel<Int>(capacity: 2)
        _ = await channel.push(1)
        channel.finish(Failure())
        channel.finish()
        #expect(try await channel.next() == 1)
        await #expect(throws: Failure.self) { try await channel.next() }
        #expect(try await channel.next() == nil)
    }

    @Test func aWaitingConsumerIsHandedTheElementOrTheEnd() async throws {
        let channel = SubscriptionChannel<Int>(capacity: 1)
        let first = Task { try await channel.next() }
        #expect(await channel.push(7))
        #expect(try await first.value == 7)
        let second = Task { try await channel.next() }
        channel.finish(Failure())
        await #expect(throws: Failure.self) { try await second.value }
    }

    @Test func cancelDropsWhatIsBufferedAndReleasesTheProducer() async throws {
        let channel = SubscriptionChannel<Int>(capacity: 1)
        _ = await channel.push(1)
        let blocked = Task { await channel.push(2) }
        channel.cancel()
        #expect(await blocked.value == false)
        #expect(try await channel.next() == nil)
        #expect(await channel.push(3) == false)
    }

    @Test func theBufferReclaimsItsFrontAfterManyElements() {
        var buffer = SubscriptionBuffer<Int>(capacity: 1_000)
        for round in 0..<10 {
            for i in 0..<1_000 {
                guard case .accepted = buffer.push(round * 1_000 + i) else {
                    Issue.record("refused at \(i)")
                    return
                }
            }
            for i in 0..<1_000 {
                guard case .element(let e, _) = buffer.next(), e == round * 1_000 + i else {
                    Issue.record("out of order")
                    return
                }
            }
        }
        #expect(buffer.count == 0)
    }
}
