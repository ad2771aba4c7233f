import Dispatch
import Foundation
import RealtimeCore
#if canImport(Glibc)
import Glibc
#endif
#if canImport(CLinux)
import CLinux
#endif

/// A loopback HTTP/1.1 forward proxy for tests: `CONNECT host:port` tunnels (for `https`
/// and `wss`) and absolute-form requests (`GET http://host:port/path`, for plain `http`)
/// whose answers are streamed back as they arrive (an SSE stream flows through event by
/// event), with optional Basic authentication and a record of every request.
///
/// ```swift
/// let proxy = TestProxy(configuration: .init(credentials: ("user", "secret")))
/// try proxy.start()
/// defer { proxy.stop() }
/// options.proxy = .url(proxy.url(user: "user", password: "secret").absoluteString)
/// // … run a client …
/// #expect(proxy.requests.first?.outcome == .tunnelled)
/// ```
///
/// It binds 127.0.0.1 on a random port and only ever connects to loopback addresses
/// (``Configuration/hosts`` maps test names onto them). One thread per client connection
/// reads the request head (bounded by ``Configuration/maxHeadSize`` and
/// ``Configuration/timeout``); a tunnel then runs one thread per direction with a 16 KiB
/// buffer each. An end of stream is passed on as a half-close; an error closes both sides.
/// `stop()` shuts every socket down and waits (up to 10 s) for the threads.
package final class TestProxy: Sendable {
    /// The configuration the proxy was made with.
    package let configuration: Configuration

    struct State: Sendable {
        var running = false
        var port: UInt16 = 0
        var listener: Int32 = -1
        var wakeFD: Int32 = -1
        var active: Set<Int32> = []
        var requests: [RecordedProxyRequest] = []
        var connectionsAccepted = 0
    }

    let state = LockedValue(State())
    private let threads = DispatchGroup()

    /// A proxy; call `start()` to listen.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    deinit {
        stop()
    }

    // MARK: Addresses and records

    /// The bound port (0 before `start()`).
    package var port: UInt16 { state.withLock { $0.port } }
    /// `http://127.0.0.1:PORT`.
    package var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// `http://user:password@127.0.0.1:PORT`, userinfo percent-encoded (RFC 3986 §3.2.1).
    package func url(user: String, password: String) -> URL {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let u = user.addingPercentEncoding(withAllowedCharacters: allowed) ?? user
        let p = password.addingPercentEncoding(withAllowedCharacters: allowed) ?? password
        return URL(string: "http://\(u):\(p)@127.0.0.1:\(port)")!
    }
    /// Every request received since `start()` (or ``clearRequests()``), in arrival order.
    package var requests: [RecordedProxyRequest] { state.withLock { $0.requests } }
    /// Forgets the recorded requests.
    package func clearRequests() { state.withLock { $0.requests.removeAll() } }
    /// Client connections accepted so far.
    package var connectionsAccepted: Int { state.withLock { $0.connectionsAccepted } }
    /// Sockets (client and origin sides) open right now.
    package var openSockets: Int { state.withLock { $0.active.count } }

    // MARK: Lifecycle

    /// Binds 127.0.0.1 on a free port and starts accepting. A no-op when running.
    package func start() throws {
        guard !state.withLock({ $0.running }) else { return }
        let (listener, port) = try Socket.listen(ipv6: false, port: 0, backlog: 128)
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC))
        state.withLock {
            $0.running = true
            $0.port = port
            $0.listener = listener
            $0.wakeFD = wakeFD
        }
        spawn { [self] in acceptLoop(listener: listener, wakeFD: wakeFD) }
    }

    /// Closes the listener and every tunnel at once and waits (up to 10 s) for the threads.
    package func stop() {
        let taken: (listener: Int32, wakeFD: Int32)? = state.withLock {
            guard $0.running else { return nil }
            $0.running = false
            for fd in $0.active { shutdown(fd, Int32(SHUT_RDWR)) }
            return ($0.listener, $0.wakeFD)
        }
        guard let taken else { return }
        var one: UInt64 = 1
        _ = write(taken.wakeFD, &one, 8)
        shutdown(taken.listener, Int32(SHUT_RDWR))
        let finished = threads.wait(timeout: .now() + 10) == .success
        close(taken.listener)
        // A thread still blocked may yet poll the eventfd: leak it rather than let another
        // descriptor reuse its number under that thread.
        if finished { close(taken.wakeFD) }
    }

    // MARK: Threads and sockets

    func spawn(_ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            body()
            threads.leave()
        }
        thread.stackSize = 512 * 1024
        thread.start()
    }

    /// Tracks `fd` so `stop()` can shut it down; false (and the socket closed) when stopping.
    func adopt(_ fd: Int32) -> Bool {
        let adopted = state.withLock {
            guard $0.running else { return false }
            $0.active.insert(fd)
            return true
        }
        if !adopted { close(fd) }
        return adopted
    }

    func release(_ fd: Int32) {
        state.withLock { _ = $0.active.remove(fd) }
        close(fd)
    }

    func record(_ request: RecordedProxyRequest) {
        state.withLock { $0.requests.append(request) }
    }

    private func acceptLoop(listener: Int32, wakeFD: Int32) {
        Socket.acceptLoop(listener: listener, wakeFD: wakeFD) { fd in
            guard adopt(fd) else { return false }
            state.withLock { $0.connectionsAccepted += 1 }
            Socket.setNoDelay(fd)
            spawn { [self] in
                TestProxySession(proxy: self, client: fd, wakeFD: wakeFD).run()
            }
            return true
        }
    }
}
