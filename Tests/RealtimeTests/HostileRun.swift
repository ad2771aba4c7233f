#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// One ``RealtimeClient`` run against a hostile server, as a user would see it: every
/// ``ClientEvent`` and every log record, with credentials planted everywhere a request can
/// carry them (a bearer token, a cookie, an API key, a URL password, a POST body when asked),
/// so that any test can check that none of them leaks.
struct HostileRun: Sendable {
    /// What the planted secrets share: it must appear in no event, description or log record.
    static let marker = "SECRET"
    static let bearer = "Bearer SECRET-b7e1"
    static let cookie = "session=SECRET-19d2"
    static let apiKey = "SECRET-5a0c"
    static let password = "SECRET-c3f8"
    static let body = #"{"prompt":"SECRET-8e44"}"#

    var events: [ClientEvent]
    /// When each event arrived, from the client's creation.
    var times: [Duration]
    var logs: [String]
    /// True when the client ended by itself; false when the run closed it at the end of its window.
    var stoppedByItself: Bool
    var elapsed: Duration
    /// The kernel's TCP sockets on the URL's port when the window ended with the client still
    /// running (nil otherwise): whether a connection that never answered reached the listener.
    var socketsAtWindowEnd: String?

    var errors: [ErrorEvent] { events.compactMap(\.errorEvent) }
    /// When the first error arrived, from the client's creation.
    var firstErrorAt: Duration? { events.firstIndex { $0.errorEvent != nil }.map { times[$0] } }
    var messages: [Message] { events.compactMap { if case .event(let m) = $0 { m } else { nil } } }
    var opens: [ConnectionInfo] { events.compactMap { if case .open(let info) = $0 { info } else { nil } } }
    var closes: [CloseEvent] { events.compactMap(\.closeEvent) }
    var summary: String {
        let shown = events.map(\.short).joined(separator: " ")
        guard let socketsAtWindowEnd else { return shown }
        return shown + "\nthe window ended; the sockets on the port:\n\(socketsAtWindowEnd)\nthe client's last log records:\n"
            + logs.suffix(30).joined(separator: "\n")
    }

    /// `url` with `user:<password>@` in front of the host.
    static func withPassword(_ url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.user = "user"
        components.password = password
        return components.url!
    }

    /// Runs a client for `url` with the secrets planted (the URL password too when `password`)
    /// until it stops by itself, `until` is satisfied by the events so far, or `within` passes;
    /// in the last two cases it closes the client and records what followed. (`configure` has
    /// no default so that a trailing closure always means it, never `until`.)
    static func client(
        _ url: URL, password: Bool = true, within: Duration = .seconds(20),
        until: @escaping @Sendable ([ClientEvent]) -> Bool = { _ in false },
        _ configure: (inout RealtimeClient.Configuration) -> Void
    ) async throws -> HostileRun {
        let logs = LogCapture()
        var configuration = RealtimeClient.Configuration()
        configuration.headers = ["Authorization": bearer, "Cookie": cookie, "X-Api-Key": apiKey]
        configuration.logHandler = logs
        configuration.logLevel = .trace
        // Far beyond a loopback answer, so that a loaded machine does not turn the path a test
        // takes into a connect timeout; tests of timeouts set their own.
        configuration.connectTimeout = .seconds(30)
        configure(&configuration)
        let client = try RealtimeClient(url: password ? withPassword(url) : url, configuration: configuration)
        let clock = ContinuousClock()
        let started = clock.now
        let state = LockedValue<(events: [ClientEvent], times: [Duration], closed: Bool)>(([], [], false))
        let consumer = Task {
            for await event in client.events {
                let at = clock.now - started
                let satisfied = state.withLock { s -> Bool in
                    s.events.append(event)
                    s.times.append(at)
                    guard !s.closed, until(s.events) else { return false }
                    s.closed = true
                    return true
                }
                if satisfied { client.close() }
            }
        }
        let sockets = LockedValue<String?>(nil)
        let watchdog = WallTime.expire(after: within) {
            sockets.withLock { $0 = ProcessResources.tcpTable(port: UInt16(url.port ?? 0)) }
            state.withLock { $0.closed = true }
            client.close()
        }
        await consumer.value
        watchdog.cancel()
        let (events, times, closed) = state.withLock { ($0.events, $0.times, $0.closed) }
        return HostileRun(
            events: events, times: times, logs: logs.lines, stoppedByItself: !closed, elapsed: clock.now - started,
            socketsAtWindowEnd: sockets.withLock { $0 })
    }

    /// No planted secret in any event (as printed and as reflected), error detail or log record.
    func expectNoSecret(sourceLocation: SourceLocation = #_sourceLocation) {
        for event in events {
            let printed = "\(event) \(String(reflecting: event))"
            #expect(!printed.contains(Self.marker), "a secret in an event: \(printed)", sourceLocation: sourceLocation)
        }
        for line in logs {
            #expect(!line.contains(Self.marker), "a secret in the log: \(line)", sourceLocation: sourceLocation)
        }
    }
}

/// Collects log records as `level message metadata` lines.
final class LogCapture: RealtimeLogHandler {
    private let records = LockedValue<[String]>([])

    var lines: [String] { records.withLock { $0 } }

    func log(level: RealtimeLogLevel, message: String, metadata: [String: String]) {
        let line = "\(level) \(message) \(metadata.sorted { $0.key < $1.key })"
        records.withLock { $0.append(line) }
    }
}
#endif
