#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `RealtimeClient.OpenContext`'s receiving side over the production WebSocket connection on
/// the embedded stack: what `receive(where:)` passes over reaches the consumer after `open`, a
/// message held before the hook asks is still the hook's, one receive at a time, the context's
/// info, attempt and cursor per attempt, the timeout and a close end a waiting receive, and the
/// heartbeat's responder answers a server's ping during the handshake.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientOpenContextTests {
    typealias Hook = EmbeddedClientOpenHookTests

    /// The code of a thrown `RealtimeError`, or the error's description.
    static func code(_ error: any Error) -> String {
        (error as? RealtimeError).map { "\($0.code)" } ?? "\(error)"
    }

    /// True when the consumer got an `open` (the connection became ready).
    static func opened(_ rec: EventRecorder) -> Bool {
        rec.events.contains { if case .open = $0 { true } else { false } }
    }

    /// The messages `receive(where:)` passes over stay for the consumer: it gets them after
    /// `open`, in the order they arrived, and never the one the hook took.
    @Test func receiveWhereLeavesWhatItPassesOverForTheConsumerInOrder() async throws {
        let t = try Hook.client { context in
            try await context.send(.text("join"))
            _ = try await context.receive { $0.text == "ack" }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        await Hook.read(1, on: server, t)
        for text in ["a", "b", "ack", "c"] { server.sendText(text) }
        await rec.waitFor(4)
        #expect(rec.summary == "open(1) event(a) event(b) event(c)")
    }

    /// A message that arrived before the hook asked is held for it: its `receive()` returns
    /// it, and the consumer never gets it.
    @Test func aMessageThatArrivedBeforeTheHookAskedIsStillTheHooks() async throws {
        let gate = Observed(false)
        let running = Observed(false)
        let taken = Observed<String?>(nil)
        let t = try Hook.client { context in
            running.update { $0 = true }
            await gate.wait("the test to release the hook") { $0 }
            let message = try await context.receive()
            taken.update { $0 = message.text }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        await running.wait("the hook to run") { $0 }
        server.sendText("welcome")
        t.run()
        gate.update { $0 = true }
        await taken.wait("the hook's message") { $0 != nil }
        #expect(taken.value == "welcome")
        server.sendText("news")
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(news)")
    }

    /// The hook receives one message at a time: of two receives waiting at once, one throws
    /// `invalid_configuration`; the other still gets its message.
    @Test func twoReceivesAtOnceOneThrowsInvalidConfiguration() async throws {
        let outcomes = Observed<[String]>([])
        let t = try Hook.client { context in
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do {
                            let message = try await context.receive { $0.text == "go" }
                            outcomes.update { $0.append(message.text ?? "?") }
                        } catch {
                            outcomes.update { $0.append(Self.code(error)) }
                        }
                    }
                }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        await outcomes.wait("one receive to fail") { !$0.isEmpty }
        #expect(outcomes.value == ["invalid_configuration"])
        server.sendText("go")
        server.sendText("after")
        await rec.waitFor(2)
        #expect(outcomes.value == ["invalid_configuration", "go"])
        #expect(rec.summary == "open(1) event(after)")
    }

    /// What one attempt's hook saw of its context.
    struct Seen: Equatable, Sendable {
        var attempt: Int
        var infoAttempt: Int
        var transport: TransportKind
        var status: Int?
        var url: String
        var cursor: String?
    }

    /// The context tells the hook its attempt (the same as `info.attempt`), what the
    /// connection negotiated, and the resume cursor: nil before any event with an id was
    /// processed, then the last id the consumer processed.
    @Test func theContextCarriesEachAttemptsInfoAndCursor() async throws {
        let seen = Observed<[Seen]>([])
        let t = try EmbeddedClient(Hook.url) {
            $0.messageID = { $0.text }
            $0.onOpen = { c in
                let s = Seen(
                    attempt: c.attempt, infoAttempt: c.info.attempt, transport: c.info.transport,
                    status: c.info.status, url: c.info.url.absoluteString, cursor: c.cursor)
                seen.update { $0.append(s) }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        first.sendText("m1")
        first.sendText("m2")
        await rec.waitFor(3)
        first.reset()
        await rec.waitFor(5)
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        await seen.wait("the second hook") { $0.count == 2 }
        #expect(seen.value == [
            Seen(attempt: 1, infoAttempt: 1, transport: .webSocket, status: 101, url: Hook.url, cursor: nil),
            Seen(attempt: 2, infoAttempt: 2, transport: .webSocket, status: 101, url: Hook.url, cursor: "m2"),
        ])
    }

    /// `onOpenTimeout` bounds the hook's receives: a receive still waiting when the time runs
    /// out throws `cancelled`, and the attempt fails with `open_hook_failed`.
    @Test func theTimeoutEndsAWaitingReceiveWithCancelled() async throws {
        let thrown = Observed<String?>(nil)
        let t = try EmbeddedClient(Hook.url) {
            $0.onOpenTimeout = .seconds(5)
            $0.onOpen = { context in
                do { _ = try await context.receive() } catch {
                    thrown.update { $0 = Self.code(error) }
                    throw error
                }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await t.loop.waitForTimers(1)  // the hook's deadline
        t.advance(by: .seconds(5))
        await Hook.closedByTheClient(first, t)
        await thrown.wait("the receive to end") { $0 != nil }
        #expect(thrown.value == "cancelled")
        await rec.waitFor(1)
        #expect(rec.summary == "error(open_hook_failed,retry)")
    }

    /// Closing the client while the hook waits in a receive ends it with `cancelled`, and the
    /// consumer never sees the connection open.
    @Test func closingTheClientEndsAWaitingReceiveWithCancelled() async throws {
        let thrown = Observed<String?>(nil)
        let running = Observed(false)
        let t = try Hook.client { context in
            running.update { $0 = true }
            do { _ = try await context.receive() } catch { thrown.update { $0 = Self.code(error) } }
        }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await running.wait("the hook to run") { $0 }
        t.client.close()
        await thrown.wait("the receive to end") { $0 != nil }
        #expect(thrown.value == "cancelled")
        await rec.waitUntilFinished()
        #expect(!Self.opened(rec), "never ready: \(rec.summary)")
    }

    /// A server that pings during the handshake is answered by the heartbeat's responder; the
    /// ping is consumed, neither the hook's nor the consumer's.
    @Test func theResponderAnswersAServerPingDuringTheHandshake() async throws {
        let taken = Observed<String?>(nil)
        let t = try EmbeddedClient(Hook.url) {
            $0.heartbeat = .responder(deadAfter: nil, answering: .text(ping: "ping", pong: "pong", answersServerPings: true))
            $0.onOpen = { context in
                try await context.send(.text("join"))
                let reply = try await context.receive()
                taken.update { $0 = reply.text }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        await Hook.read(1, on: server, t)
        server.sendText("ping")
        await Hook.read(2, on: server, t)
        #expect(server.texts == ["join", "pong"], "answered while the hook waits")
        server.sendText("ack")
        server.sendText("news")
        await rec.waitFor(2)
        #expect(taken.value == "ack")
        #expect(rec.summary == "open(1) event(news)")
    }
}
#endif
