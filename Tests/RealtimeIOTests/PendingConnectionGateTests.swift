import RealtimeIO
import Testing

/// RFC 6455 §4.1's rule, event by event: one connection opening per address and port, the
/// others admitted in arrival order as each one is established or fails; a limit above one
/// where a connection's options allow it; nobody passed over, nothing left behind.
@Suite(.timeLimit(.minutes(1)))
struct PendingConnectionGateTests {
    static let address = "127.0.0.1 8080"

    @Test func oneOpensPerAddressTheOthersWaitInArrivalOrder() {
        var gate = PendingConnectionGate()
        let first = gate.enter(Self.address, limit: 1)
        let second = gate.enter(Self.address, limit: 1)
        let third = gate.enter(Self.address, limit: 1)
        #expect(first.admitted && !second.admitted && !third.admitted)
        #expect(gate.holdingCount(Self.address) == 1 && gate.waitingCount(Self.address) == 2)
        // Another port of the same host is another remote endpoint.
        #expect(gate.enter("127.0.0.1 8081", limit: 1).admitted)
        #expect(gate.leave(first.ticket) == [second.ticket], "established: the next in line opens")
        #expect(gate.leave(second.ticket) == [third.ticket], "failed: the same")
        #expect(gate.leave(third.ticket) == [])
        #expect(gate.holdingCount(Self.address) == 0 && gate.waitingCount(Self.address) == 0)
    }

    @Test func aConnectionThatLeavesWhileWaitingIsNeverAdmitted() {
        var gate = PendingConnectionGate()
        let first = gate.enter(Self.address, limit: 1)
        let dropped = gate.enter(Self.address, limit: 1)
        let last = gate.enter(Self.address, limit: 1)
        #expect(gate.leave(dropped.ticket) == [], "a waiting connection frees no place")
        #expect(gate.leave(first.ticket) == [last.ticket])
        #expect(gate.leave(first.ticket) == [], "leaving twice admits nobody")
        #expect(gate.holdingCount(Self.address) == 1)
    }

    @Test func aLargerLimitAdmitsThatManyAndNoOnePassesTheHeadOfTheLine() {
        var gate = PendingConnectionGate()
        let tickets = (0..<5).map { _ in gate.enter(Self.address, limit: 3) }
        #expect(tickets.map(\.admitted) == [true, true, true, false, false])
        // A strict connection behind them waits for the address to be free...
        let strict = gate.enter(Self.address, limit: 1)
        #expect(!strict.admitted)
        #expect(gate.leave(tickets[0].ticket) == [tickets[3].ticket])
        #expect(gate.leave(tickets[1].ticket) == [tickets[4].ticket])
        // ...and one that allows more, arriving later, does not pass it.
        let lenient = gate.enter(Self.address, limit: 10)
        #expect(!lenient.admitted, "the line keeps its order")
        for ticket in [tickets[2], tickets[3]] { #expect(gate.leave(ticket.ticket) == []) }
        #expect(gate.leave(tickets[4].ticket) == [strict.ticket, lenient.ticket])
    }

    @Test func tenThousandAtOnceOpenOneByOneAndLeaveNothingBehind() {
        var gate = PendingConnectionGate()
        let tickets = (0..<10_000).map { _ in gate.enter(Self.address, limit: 1) }
        var opened = [tickets[0].ticket]
        var index = 0
        while index < opened.count {
            opened += gate.leave(opened[index])
            #expect(gate.holdingCount(Self.address) <= 1)
            index += 1
        }
        #expect(opened == tickets.map(\.ticket), "every one, in arrival order")
        #expect(gate.activeKeys == 0)
    }
}
