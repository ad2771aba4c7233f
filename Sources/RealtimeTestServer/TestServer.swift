import Foundation
import RealtimeCore

/// A loopback HTTP/1.1 server for integration tests, `rtcat demo` and benchmarks:
/// SSE and WebSocket endpoints driven by the URL, with fault modes, optional TLS
/// (and mutual TLS), and a record of every request it saw.
///
/// ```swift
/// let server = TestServer()
/// try server.start()
/// defer { server.stop() }
/// let url = server.url("/sse?count=5&cut=40")
/// // … run a client against `url` …
/// #expect(server.requests.last?.headers["Last-Event-ID"] == "2")
/// ```
///
/// It binds 127.0.0.1 (and `::1` when configured) on a random port, serves one
/// request per connection (`Connection: close`) on a thread of its own with
/// blocking sockets, and `stop()` closes the listeners and every open connection
/// at once, waking any sleeping or stalled endpoint. `start()` after `stop()`
/// binds the same port again, so clients can test reconnects across a restart.
/// The endpoints and their query parameters are listed in ``endpointReference``.
///
/// Outside this package only a façade is public: ``runDemoServer(port:ipv6:certificateDirectory:)``
/// and the URLs of a running server, what the examples' `--demo` modes need.
public final class TestServer: Sendable {
    /// The configuration the server was made with.
    package let configuration: Configuration

    private let core: TestServerCore

    /// A server; call `start()` to listen.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.core = TestServerCore(configuration: configuration)
    }

    deinit {
        core.stop()
    }

    // MARK: Addresses

    /// The bound port (the configured one before the first `start()`).
    public var port: UInt16 { core.state.withLock { $0.port } }
    /// Whether the server is listening.
    package var isRunning: Bool { core.state.withLock { $0.running } }
    /// `http://127.0.0.1:PORT` (or `https://` with TLS).
    package var baseURL: URL { URL(string: "\(configuration.tls == nil ? "http" : "https")://127.0.0.1:\(port)")! }
    /// `ws://127.0.0.1:PORT` (or `wss://` with TLS).
    package var wsBaseURL: URL { URL(string: "\(configuration.tls == nil ? "ws" : "wss")://127.0.0.1:\(port)")! }
    /// `http://[::1]:PORT` (or `https://`); only served when ``Configuration/ipv6`` is set.
    package var ipv6BaseURL: URL { URL(string: "\(configuration.tls == nil ? "http" : "https")://[::1]:\(port)")! }

    /// `baseURL` + `pathAndQuery` (e.g. `"/sse?count=3"`).
    public func url(_ pathAndQuery: String) -> URL { URL(string: baseURL.absoluteString + pathAndQuery)! }
    /// `wsBaseURL` + `pathAndQuery` (e.g. `"/ws?mode=echo"`).
    public func wsURL(_ pathAndQuery: String) -> URL { URL(string: wsBaseURL.absoluteString + pathAndQuery)! }

    // MARK: Recorded state

    /// Every request received since `init` (or ``clearRequests()``), in arrival order.
    package var requests: [RecordedRequest] { core.state.withLock { $0.requests } }
    /// Requests whose path is `path`.
    package func requests(path: String) -> [RecordedRequest] { requests.filter { $0.path == path } }
    /// What happened on each `/ws` connection (messages, pings, close codes), in order.
    package var webSocketSessions: [RecordedWebSocketSession] { core.state.withLock { $0.webSocketSessions } }

    /// Forgets recorded requests and WebSocket sessions and resets the per-target attempt
    /// counters (cut schedules restart).
    package func clearRequests() {
        core.state.withLock {
            $0.webSocketSessions.removeAll()
            $0.requests.removeAll()
            $0.attempts.removeAll()
        }
    }
    /// Counters of what the server has served.
    package var statistics: Statistics { core.state.withLock { $0.statistics } }
    /// Returns once at least `count` TLS handshakes have failed on the server's side.
    package func waitForFailedHandshakes(_ count: Int) async { await core.waitForFailedHandshakes(count) }

    /// Adds or replaces a custom endpoint at `path` while running.
    package func setHandler(path: String, _ handler: Handler?) {
        core.state.withLock { $0.routes[path] = handler }
    }

    // MARK: Lifecycle

    /// Binds and starts accepting. Throws when the port is taken or TLS files do not load.
    /// A no-op when already running.
    package func start() throws { try core.start() }

    /// Closes the listeners and every open connection (streams end abruptly), wakes every
    /// sleeping or stalled endpoint, and waits (up to 10 s) for the server's threads to end.
    /// The port stays reserved in `port` for a later `start()`.
    public func stop() { core.stop() }
}
