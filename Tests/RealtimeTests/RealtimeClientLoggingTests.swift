import Realtime
import Testing

/// The log hook reports the life cycle and never a secret.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientLoggingTests {
    final class Capture: RealtimeLogHandler {
        let records = LockedValue<[(RealtimeLogLevel, String, [String: String])]>([])
        func log(level: RealtimeLogLevel, message: String, metadata: [String: String]) {
            records.withLock { $0.append((level, message, metadata)) }
        }
    }

    @Test func lifeCycleIsLoggedWithoutSecrets() async throws {
        let capture = Capture()
        let t = try TestClient("https://user:hunter2@example.com:8443/feed?token=sekrit") {
            $0.logHandler = capture
            $0.logLevel = .debug
            $0.headers = ["Authorization": "Bearer sekrit-bearer"]
            $0.body = Array("sekrit-body".utf8)
        }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(.httpStatus(503, bodyExcerpt: "sekrit-excerpt"))
        await rec.waitFor(3)
        t.client.close()
        let records = capture.records.withLock { $0 }
        #expect(records.map(\.1) == ["connecting", "connected", "connection ended; will retry", "closed by the application"])
        #expect(records[2].0 == .warning)
        #expect(records[2].2["class"] == "http")
        #expect(records[2].2["retryIn"] != nil)
        #expect(records.allSatisfy { $0.2["url"] == "https://example.com:8443/feed" && $0.2["transport"] == "sse" })
        #expect(records.prefix(3).allSatisfy { $0.2["attempt"] == "1" }, "the attempt's records carry its number")
        #expect(records[2].2["error"] == "http_status (503)", "the failure's record carries the error's description")
        let everything = records.map { "\($0.1) \($0.2)" }.joined(separator: "\n")
        for secret in ["hunter2", "sekrit"] {
            #expect(!everything.contains(secret), "\(secret) leaked into the log")
        }
    }

    @Test func levelFiltersRecords() async throws {
        let capture = Capture()
        let t = try TestClient { $0.logHandler = capture; $0.logLevel = .error }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(.httpStatus(404))
        await rec.waitUntilFinished()
        let records = capture.records.withLock { $0 }
        #expect(records.map(\.1) == ["connection ended; stopping"])
        #expect(records.first?.0 == .error)
    }
}
