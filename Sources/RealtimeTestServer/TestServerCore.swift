import Dispatch
import Foundation
import RealtimeCore
#if canImport(Glibc)
import Glibc
#endif
#if canImport(CLinux)
import CLinux
#endif

/// The state and threads behind a ``TestServer``.
///
/// Threads hold the core, never the `TestServer`, so dropping the last reference to
/// a running server runs its `deinit`, which stops it (no thread keeps it alive).
final class TestServerCore: Sendable {
    let configuration: TestServer.Configuration

    struct State: Sendable {
        var running = false
        var port: UInt16
        var listeners: [Int32] = []
        var wakeFD: Int32 = -1
        var active: Set<Int32> = []
        /// `pthread_self()` of every live server thread, so `stop()` can tell when a handler calls it.
        var threadIDs: Set<UInt> = []
        var requests: [RecordedRequest] = []
        var webSocketSessions: [RecordedWebSocketSession] = []
        var attempts: [String: Int] = [:]
        var statistics = TestServer.Statistics()
        var routes: [String: TestServer.Handler]
        var tls: TLSServerContext?
        /// Tasks waiting for a number of failed handshakes (``waitForFailedHandshakes(_:)``).
        var handshakeWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let state: LockedValue<State>
    /// Every thread the server starts enters it; `stop()` waits for all of them.
    private let threads = DispatchGroup()
    let bulkCache = BulkBuffers()
    let sseRenderings = SSERenderingCache()

    init(configuration: TestServer.Configuration) {
        self.configuration = configuration
        self.state = LockedValue(State(port: configuration.port, routes: configuration.routes))
    }

    // MARK: Lifecycle

    func start() throws {
        let tlsContext = try configuration.tls.map { try TLSServerContext($0) }
        let (port, running) = state.withLock { ($0.port, $0.running) }
        guard !running else { return }
        var listeners: [Int32] = []
        var boundPort = port
        do {
            // With port 0 the IPv6 side may find the IPv4 port taken: retry a few times.
            var tries = 0
            while true {
                tries += 1
                let v4 = try Socket.listen(ipv6: false, port: port)
                listeners = [v4.fd]
                boundPort = v4.port
                guard configuration.ipv6 else { break }
                do {
                    listeners.append(try Socket.listen(ipv6: true, port: boundPort).fd)
                    break
                } catch let failure as Socket.Failure where failure.errno == EADDRINUSE && port == 0 && tries < 20 {
                    close(v4.fd)
                    listeners = []
                }
            }
        } catch {
            listeners.forEach { _ = close($0) }
            throw error
        }
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC))
        state.withLock {
            $0.running = true
            $0.port = boundPort
            $0.listeners = listeners
            $0.wakeFD = wakeFD
            $0.tls = tlsContext
        }
        for listener in listeners {
            spawn { [self] in acceptLoop(listener: listener, wakeFD: wakeFD) }
        }
    }

    func stop() {
        let taken: (listeners: [Int32], active: Set<Int32>, wakeFD: Int32)? = state.withLock {
            guard $0.running else { return nil }
            $0.running = false
            let result = ($0.listeners, $0.active, $0.wakeFD)
            $0.listeners = []
            $0.tls = nil
            return result
        }
        guard let taken else { return }
        var one: UInt64 = 1
        _ = write(taken.wakeFD, &one, 8)
        // Shut down (not close) the connection sockets: their threads still own the
        // descriptors and close them; shutdown wakes any blocked recv/send at once.
        state.withLock { state in
            for fd in state.active { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        for fd in taken.listeners { shutdown(fd, Int32(SHUT_RDWR)) }
        let finish: @Sendable () -> Void = { [threads] in
            let finished = threads.wait(timeout: .now() + 10) == .success
            for fd in taken.listeners { close(fd) }
            // A thread still blocked after 10 s may yet poll the eventfd: leak it rather than
            // risk another descriptor reusing its number under that thread.
            if finished { close(taken.wakeFD) }
        }
        state.withLock { $0.wakeFD = -1 }
        if state.withLock({ $0.threadIDs.contains(UInt(pthread_self())) }) {
            // Called from a handler: waiting here would wait for ourselves. Finish on the side.
            Thread(block: finish).start()
        } else {
            finish()
        }
    }

    // MARK: Threads

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [self] in
            let id = UInt(pthread_self())
            state.withLock { _ = $0.threadIDs.insert(id) }
            body()
            state.withLock { _ = $0.threadIDs.remove(id) }
            threads.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func acceptLoop(listener: Int32, wakeFD: Int32) {
        let failed: (Int32) -> Void = { [state] error in
            let port = state.withLock { s in
                s.statistics.acceptFailures += 1
                s.statistics.lastAcceptError = error
                return s.port
            }
            let line = "TestServer on port \(port): accept failed (\(String(cString: strerror(error)))); still accepting\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
        Socket.acceptLoop(listener: listener, wakeFD: wakeFD, failed: failed) { fd in
            let accepted: (number: Int, tls: TLSServerContext?)? = state.withLock {
                guard $0.running else { return nil }
                $0.active.insert(fd)
                $0.statistics.connectionsAccepted += 1
                $0.statistics.activeConnections = $0.active.count
                return ($0.statistics.connectionsAccepted, $0.tls)
            }
            guard let accepted else {
                close(fd)
                return false
            }
            spawn { [self] in
                serve(fd: fd, wakeFD: wakeFD, number: accepted.number, tls: accepted.tls)
            }
            return true
        }
    }

    /// Returns once at least `count` TLS handshakes have failed on the server's side: a client
    /// that gave up on the handshake may be done before the server even accepted it.
    func waitForFailedHandshakes(_ count: Int) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { s -> Bool in
                guard s.statistics.failedHandshakes < count else { return true }
                s.handshakeWaiters.append((count, waiter))
                return false
            }
            if reached { waiter.resume() }
        }
    }

    private func handshakeFailed() {
        let due = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.statistics.failedHandshakes += 1
            let n = s.statistics.failedHandshakes
            defer { s.handshakeWaiters.removeAll { $0.count <= n } }
            return s.handshakeWaiters.filter { $0.count <= n }.map(\.continuation)
        }
        for waiter in due { waiter.resume() }
    }

    private func serve(fd: Int32, wakeFD: Int32, number: Int, tls: TLSServerContext?) {
        let connection = ServerConnection(fd: fd, wakeFD: wakeFD) { [state] count in
            state.withLock { $0.statistics.bytesWritten += count }
        }
        defer {
            connection.drainBeforeClose()
            state.withLock {
                $0.active.remove(fd)
                $0.statistics.activeConnections = $0.active.count
            }
            close(fd)
        }
        Socket.setNoDelay(fd)
        if let tls {
            if let fault = tls.handshakeFault, fault.vanishes {
                fault.play(fd: fd, wakeFD: wakeFD)
                handshakeFailed()
                return
            }
            do {
                try connection.startTLS(context: tls.context)
            } catch {
                handshakeFailed()
                return
            }
        }
        var reader = HTTPRequestReader(connection: connection)
        guard let (head, body) = try? reader.readRequest() else {
            try? connection.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            connection.close()
            return
        }
        let (path, rawQuery, query) = HTTPRequestReader.splitTarget(head.target)
        let request: RecordedRequest
        let handler: TestServer.Handler?
        (request, handler) = state.withLock {
            let attempt = $0.attempts[head.target, default: 0]
            $0.attempts[head.target] = attempt + 1
            let request = RecordedRequest(
                method: head.method, target: head.target, path: path, rawQuery: rawQuery, query: query,
                version: head.version, headers: head.headers, body: body, isTLS: connection.isTLS,
                clientCertificateSubject: connection.peerCertificateSubject, connectionNumber: number,
                attempt: attempt)
            $0.requests.append(request)
            return (request, $0.routes[path])
        }
        let writer = ResponseWriter(request: request, connection: connection) { [self] in
            state.withLock { $0.statistics.cuts += 1 }
        }
        do {
            if let handler {
                try handler(writer)
            } else {
                try BuiltinEndpoints.respond(writer, core: self)
            }
            if !writer.headWritten {
                try writer.writeHead(status: 500, headers: ["Content-Type": "text/plain"], framing: .contentLength(0))
            }
            try writer.finish()
        } catch {
            if !writer.headWritten, !connection.isClosed {
                let message = Array("handler failed: \(error)\n".utf8)
                try? writer.writeHead(
                    status: 500, headers: ["Content-Type": "text/plain"], framing: .contentLength(message.count))
                try? writer.writeRaw(message)
            }
            connection.close()
        }
    }

    // MARK: WebSocket records

    func recordWebSocketSession(_ session: RecordedWebSocketSession) {
        state.withLock { $0.webSocketSessions.append(session) }
    }

    func updateWebSocketSession(_ connectionNumber: Int, _ update: (inout RecordedWebSocketSession) -> Void) {
        state.withLock {
            if let index = $0.webSocketSessions.lastIndex(where: { $0.connectionNumber == connectionNumber }) {
                update(&$0.webSocketSessions[index])
            }
        }
    }
}
