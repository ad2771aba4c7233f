#if os(Linux)
import Foundation
import Realtime
import RealtimeCore
import RealtimeTesting
import Testing

/// The log hook, over the production SSE connection on the embedded stack: the life cycle is
/// reported, a level filters it, and no secret of the URL, the headers, the body or the
/// server's answer reaches a record.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientLoggingTests {
    final class Capture: RealtimeLogHandler {
        let records = LockedValue<[(RealtimeLogLevel, String, [String: String])]>([])
        func log(level: RealtimeLogLevel, message: String, metadata: [String: String]) {
            records.withLock { $0.append((level, message, metadata)) }
        }
    }

    @Test func theLifeCycleIsLoggedWithoutSecrets() async throws {
        let capture = Capture()
        let t = try EmbeddedClient("https://user:hunter2@example.com:8443/feed?token=sekrit") {
            $0.logHandler = capture
            $0.logLevel = .debug
            $0.headers = ["Authorization": "Bearer sekrit-bearer"]
            $0.body = Array("sekrit-body".utf8)
        }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("sekrit-event", id: "sekrit-id")
        first.reset()
        await rec.waitFor(4)
        await t.waitOutTheBackoff()
        EmbeddedClientPolicyTests.answer(try await t.sseAttempt(2), 503, body: "sekrit-excerpt")
        await rec.waitFor(5)
        t.client.close()
        let records = capture.records.withLock { $0 }
        #expect(records.map(\.1) == [
            "connecting", "connected", "connection ended; will retry", "connecting", "connection ended; will retry",
            "closed by the application",
        ])
        #expect(records[4].0 == .warning && records[4].2["class"] == "http" && records[4].2["retryIn"] != nil)
        #expect(records.allSatisfy { $0.2["url"] == "https://example.com:8443/feed" && $0.2["transport"] == "sse" })
        #expect(records.prefix(3).allSatisfy { $0.2["attempt"] == "1" }, "the attempt's records carry its number")
        #expect(records[4].2["error"] == "http_status (503)", "the failure's record carries the error's description")
        let everything = records.map { "\($0.1) \($0.2)" }.joined(separator: "\n")
        for secret in ["hunter2", "sekrit"] {
            #expect(!everything.contains(secret), "\(secret) leaked into the log")
        }
    }

    /// The network lost and back, a path change under a live connection, suspend and resume
    /// each leave a record, with the path's description where the network is concerned.
    @Test func networkAndLifecycleChangesAreLogged() async throws {
        let capture = Capture()
        let monitor = ManualNetworkMonitor()
        let t = try EmbeddedClient {
            $0.logHandler = capture
            $0.logLevel = .info
            $0.networkMonitor = monitor
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        _ = try await t.openedSSE()
        await rec.waitFor(1)
        monitor.signalPathChange()
        monitor.setReachable(false)
        await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        monitor.setReachable(true)
        try await t.sseAttempt(2).respond()
        await rec.waitFor("the second open") { $0.short == "open(2)" }
        t.client.suspend()
        await t.waitForState("suspended") { $0 == .suspended }
        t.client.resume()
        _ = try await t.sseAttempt(3)
        let records = capture.records.withLock { $0 }.filter { $0.1 != "connected" && !$0.1.hasPrefix("connection ended") }
        #expect(records.map(\.1) == [
            "network path changed: verifying the connection", "network lost", "connection lost with the network",
            "network is back: connecting at once with a fresh backoff", "suspended", "resumed",
        ])
        #expect([0, 1, 3].allSatisfy { records.indices.contains($0) && records[$0].2["path"] != nil }, "the network's records carry the path")
        #expect(records.first { $0.1 == "network lost" }?.0 == .notice)
    }

    @Test func theLevelFiltersRecords() async throws {
        let capture = Capture()
        let t = try EmbeddedClient { $0.logHandler = capture; $0.logLevel = .error }
        let rec = EventRecorder(t.client)
        EmbeddedClientPolicyTests.answer(try await t.sseAttempt(1), 404)
        await rec.waitUntilFinished()
        let records = capture.records.withLock { $0 }
        #expect(records.map(\.1) == ["connection ended; stopping"])
        #expect(records.first?.0 == .error)
    }

    /// A failed on-open hook, a connection the application failed through its context, and a
    /// restart each leave a record with the attempt, the error and the close code as the
    /// Logging article says.
    @Test func hookFailuresApplicationFailuresAndRestartsAreLogged() async throws {
        struct Refused: Error {}
        let capture = Capture()
        let kept = LockedValue<RealtimeClient.OpenContext?>(nil)
        let t = try EmbeddedClient("ws://peer.test/ws") {
            $0.logHandler = capture
            $0.onOpen = { context in
                if context.attempt == 1 { throw Refused() }
                kept.withLock { $0 = context }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await EmbeddedClientOpenHookTests.closedByTheClient(first, t)
        await rec.waitFor(1)
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        await rec.waitFor(2)
        kept.withLock { $0 }?.fail(RealtimeError(.protocolViolation, detail: "bad frame"), closeCode: 4000)
        await EmbeddedClientOpenHookTests.closedByTheClient(second, t)
        await rec.waitFor(4)
        await t.waitOutTheBackoff()
        let third = try await t.webSocketAttempt(3)
        third.accept()
        await rec.waitFor(5)
        t.client.restart()
        let records = capture.records.withLock { $0 }
        let hook = try #require(records.first { $0.1 == "on-open hook failed: closing the connection" })
        #expect(hook.0 == .warning && hook.2["attempt"] == "1" && hook.2["error"]?.contains("open_hook_failed") == true)
        let failed = try #require(records.first { $0.1 == "connection failed by the application: closing it" })
        #expect(failed.0 == .warning && failed.2["attempt"] == "2" && failed.2["closeCode"] == "4000")
        #expect(failed.2["error"]?.contains("protocol_violation") == true)
        let restart = try #require(records.first { $0.1 == "restart requested" })
        #expect(restart.0 == .info && restart.2["attempt"] == "3")
    }
}
#endif
