@testable import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// The session machine without I/O: ids, the handshake, routing by id, accepting results,
/// what each close code means; and thousands of seeded random event sequences with its
/// invariants checked after every step.
@Suite(.timeLimit(.minutes(1))) struct GraphQLSessionMachineTests {
    typealias Machine = GraphQLSessionMachine

    /// A machine with `count` operations, acknowledged on attempt 1.
    static func ready(_ count: Int) -> Machine {
        var m = Machine()
        for _ in 0..<count { _ = m.subscribe() }
        _ = m.handshakeStarted(attempt: 1)
        _ = m.acknowledged(attempt: 1)
        return m
    }

    @Test func theFirstSubscriptionStartsTheClientAndOperationsWaitForTheAck() {
        let box = MachineBox(Machine())
        #expect(box.m.subscribe() == (1, .start))
        #expect(box.m.subscribe() == (2, .wait))
        #expect(box.m.handshakeStarted(attempt: 1) == true)
        #expect(box.m.subscribe() == (3, .wait), "connection_init is out, no ack yet")
        #expect(box.m.acknowledged(attempt: 1) == (1...3).map { .subscribe(key: UInt64($0), id: "\($0)", attempt: 1) })
        #expect(box.m.subscribe() == (4, .send(.subscribe(key: 4, id: "4", attempt: 1))))
    }

    @Test func idsAreNeverReusedAcrossConnections() {
        let box = MachineBox(Self.ready(2))
        #expect(box.m.transportEnded(attempt: 1, code: 1012, reason: nil) == .reconnect)
        #expect(box.m.active.isEmpty && box.m.operations.values.allSatisfy { $0.id == nil })
        #expect(box.m.handshakeStarted(attempt: 2) == true)
        #expect(box.m.acknowledged(attempt: 2) == [
            .subscribe(key: 1, id: "3", attempt: 2), .subscribe(key: 2, id: "4", attempt: 2),
        ])
    }

    @Test func anOperationWhoseSubscribeNeverWentOutEndsWithoutAComplete() {
        let box = MachineBox(Self.ready(2))
        box.m.unsent(1)
        #expect(box.m.operations[1] == nil && box.m.active["1"] == nil)
        #expect(box.m.cancel(1) == nil, "nothing to tell the server")
        #expect(box.m.received(.next(id: "1"), attempt: 1) == .ignore)
        #expect(box.m.cancel(2) == .complete(id: "2", attempt: 1), "the other one went out")
    }

    @Test func aStaleAckOrHandshakeChangesNothing() {
        let box = MachineBox(Machine())
        _ = box.m.subscribe()
        #expect(box.m.handshakeStarted(attempt: 1) == true)
        #expect(box.m.transportEnded(attempt: 1, code: nil, reason: nil) == .reconnect)
        #expect(box.m.acknowledged(attempt: 1) == nil, "that connection is gone")
        #expect(box.m.handshakeStarted(attempt: 2) == true)
        #expect(box.m.acknowledged(attempt: 1) == nil)
        #expect(box.m.acknowledged(attempt: 2)?.count == 1)
    }

    @Test func messagesAreRoutedByIdOnTheReadyConnectionOnly() {
        let box = MachineBox(Self.ready(2))
        #expect(box.m.received(.next(id: "2"), attempt: 1) == .deliver(key: 2, id: "2"))
        #expect(box.m.received(.next(id: "2"), attempt: 2) == .ignore, "another connection's")
        #expect(box.m.received(.next(id: "9"), attempt: 1) == .ignore, "an id never used")
        #expect(box.m.received(.ping, attempt: 1) == .send(.pong(attempt: 1)))
        #expect(box.m.received(.pong, attempt: 1) == .ignore)
        #expect(box.m.received(.connectionAck, attempt: 1) == .ignore)
        #expect(box.m.received(.invalid(detail: "x"), attempt: 1) == .violation("x"))
        let errors = [GraphQLError(message: "no")]
        #expect(box.m.received(.error(id: "1", errors: errors), attempt: 1) == .end(key: 1, error: .operationFailed(errors)))
        #expect(box.m.received(.complete(id: "2"), attempt: 1) == .end(key: 2, error: nil))
        #expect(box.m.operations.isEmpty)
    }

    @Test func aMessageForAnIdTheServerEndedIsAViolationOneTheClientEndedIsNot() {
        let box = MachineBox(Self.ready(2))
        #expect(box.m.cancel(1) == .complete(id: "1", attempt: 1))
        #expect(box.m.received(.next(id: "1"), attempt: 1) == .ignore, "in flight when our complete went out")
        _ = box.m.received(.complete(id: "2"), attempt: 1)
        for late: GraphQLInbound in [.next(id: "2"), .complete(id: "2"), .error(id: "2", errors: [])] {
            guard case .violation = box.m.received(late, attempt: 1) else {
                Issue.record("\(late) after the server's complete was accepted")
                continue
            }
        }
    }

    @Test func aResultIsAcceptedOnlyUnderItsOperationsCurrentId() {
        let box = MachineBox(Self.ready(1))
        #expect(box.m.accept(1, id: "1", cursor: 5) == true)
        #expect(box.m.cursor(of: 1, id: "1").map { $0 as? Int } == .some(5))
        _ = box.m.transportEnded(attempt: 1, code: nil, reason: nil)
        #expect(box.m.accept(1, id: "1", cursor: 6) == false, "its connection ended: the re-subscription asks for it again")
        _ = box.m.handshakeStarted(attempt: 2)
        _ = box.m.acknowledged(attempt: 2)
        #expect(box.m.cursor(of: 1, id: "1") == nil, "the old id is not sent")
        #expect(box.m.cursor(of: 1, id: "2").map { $0 as? Int } == .some(5))
        #expect(box.m.accept(1, id: "2", cursor: nil) == true, "a result without data keeps the cursor")
        #expect(box.m.cursor(of: 1, id: "2").map { $0 as? Int } == .some(5))
    }

    @Test(arguments: [
        (4400, true), (4401, false), (4403, true), (4406, true), (4408, false), (4409, true), (4429, false),
        (4499, false), (4500, false), (4504, false), (1000, false), (1001, false), (1011, false), (4000, false),
    ] as [(UInt16, Bool)])
    func whatACloseCodeMeans(code: UInt16, final: Bool) {
        let box = MachineBox(Self.ready(1))
        let verdict = box.m.transportEnded(attempt: 1, code: code, reason: "why")
        if final {
            #expect(verdict == .final(.connectionRejected(closeCode: code, reason: "why", detail: box.m.finalError?.detail ?? "")))
            #expect(box.m.phase == .ended)
            #expect(box.m.subscribe().1 == .refuse(box.m.finalError!))
        } else {
            #expect(verdict == .reconnect)
            #expect(box.m.phase == .running)
        }
    }

    @Test func a4401IsFinalOnlyTwiceInARowWithoutAnAckBetween() {
        let box = MachineBox(Self.ready(1))
        #expect(box.m.transportEnded(attempt: 1, code: 4401, reason: nil) == .reconnect)
        _ = box.m.handshakeStarted(attempt: 2)
        _ = box.m.acknowledged(attempt: 2)
        #expect(box.m.transportEnded(attempt: 2, code: 4401, reason: nil) == .reconnect, "an ack came between")
        _ = box.m.handshakeStarted(attempt: 3)
        guard case .final(let error) = box.m.transportEnded(attempt: 3, code: 4401, reason: nil) else {
            Issue.record("a second 4401 in a row was retried")
            return
        }
        #expect(error.closeCode == 4401)
    }

    @Test func closeAndStopEndEveryOperationOnce() {
        let box = MachineBox(Self.ready(3))
        #expect(box.m.stopped(GraphQLClientError(.connectionFailed)) == [1, 2, 3])
        #expect(box.m.stopped(nil).isEmpty)
        #expect(box.m.close().isEmpty)
        #expect(box.m.finalError?.code == .connectionFailed)
        #expect(box.m.handshakeStarted(attempt: 2) == false)
        let closed = MachineBox(Self.ready(1))
        #expect(closed.m.close() == [1])
        #expect(closed.m.subscribe().1 == .refuse(GraphQLClientError(.closed, detail: "the client was closed")))
    }

    /// Thousands of random sequences of every event, with the invariants after each step:
    /// a live id belongs to exactly one operation that holds it, only on the ready
    /// connection; ids only grow; nothing is routed on a connection that is not ready.
    @Test func randomSequencesKeepTheInvariants() {
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<2_000 {
            var m = Machine()
            var attempt = 0
            var highest = 0
            for _ in 0..<40 {
                Self.step(&m, &attempt, &rng)
                Self.checkInvariants(m, highest: &highest)
            }
        }
    }

    static func step(_ m: inout Machine, _ attempt: inout Int, _ rng: inout SeededGenerator) {
        let keys = Array(m.operations.keys)
        let ids = Array(m.active.keys) + ["0", "999"]
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1: _ = m.subscribe()
        case 2: if let key = keys.randomElement(using: &rng) { _ = m.cancel(key) }
        case 3:
            attempt += 1
            _ = m.handshakeStarted(attempt: attempt)
        case 4: _ = m.acknowledged(attempt: Bool.random(using: &rng) ? attempt : attempt - 1)
        case 5:
            let codes: [UInt16?] = [nil, 1000, 1006, 4401, 4408, 4429, 4403]
            _ = m.transportEnded(attempt: attempt, code: codes.randomElement(using: &rng)!, reason: nil)
        case 6:
            let id = ids.randomElement(using: &rng)!
            let message: GraphQLInbound = [.next(id: id), .complete(id: id), .error(id: id, errors: []), .ping].randomElement(using: &rng)!
            if case .deliver(let key, let id) = m.received(message, attempt: attempt) {
                let accepted = m.accept(key, id: id, cursor: Int.random(in: 0..<9, using: &rng))
                #expect(accepted, "a routed result is accepted under its id")
            }
        case 7: if let key = keys.randomElement(using: &rng), let id = m.operations[key]?.id { _ = m.accept(key, id: id, cursor: 1) }
        case 8: if Int.random(in: 0..<20, using: &rng) == 0 { _ = m.close() }
        default: if Int.random(in: 0..<20, using: &rng) == 0 { _ = m.stopped(nil) }
        }
    }

    static func checkInvariants(_ m: Machine, highest: inout Int) {
        for (id, key) in m.active {
            #expect(m.operations[key]?.id == id, "active id \(id) is not its operation's")
            highest = max(highest, Int(id)!)
        }
        let withIDs = m.operations.values.compactMap(\.id)
        #expect(withIDs.count == m.active.count && Set(withIDs).count == withIDs.count, "an id held twice or not active")
        if case .ready = m.connection {} else { #expect(m.active.isEmpty, "live ids without a ready connection") }
        if m.phase == .ended { #expect(m.operations.isEmpty || m.finalError != nil) }
        for id in withIDs { #expect(Int(id)! <= highest) }
    }
}

/// A machine the tests' `#expect` can call mutating methods on.
final class MachineBox: @unchecked Sendable {
    var m: GraphQLSessionMachine
    init(_ m: GraphQLSessionMachine) { self.m = m }
}
