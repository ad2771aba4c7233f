import Foundation
import RealtimeCore
@testable import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// Start, stop, restart, addresses and custom routes of the test server.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct TestServerLifecycleTests {
    @Test func bindsARandomLoopbackPortAndBuildsURLs() throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        #expect(server.port != 0)
        #expect(server.isRunning)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.wsBaseURL.absoluteString == "ws://127.0.0.1:\(server.port)")
        #expect(server.url("/sse?count=1").absoluteString == "http://127.0.0.1:\(server.port)/sse?count=1")
        let other = TestServer()
        try other.start()
        defer { other.stop() }
        #expect(other.port != server.port)
    }

    @Test func servesIPv6WhenAsked() throws {
        let server = TestServer(configuration: .init(ipv6: true))
        try server.start()
        defer { server.stop() }
        let response = try TestServerRawClient.fetch(port: server.port, "/sse?count=1", ipv6: true)
        #expect(response.statusCode == 200)
        #expect(server.ipv6BaseURL.absoluteString == "http://[::1]:\(server.port)")
    }

    @Test func stopClosesActiveConnectionsAndRestartReusesThePort() throws {
        let server = TestServer()
        try server.start()
        let port = server.port
        let clients = try (0..<3).map { _ in try TestServerRawClient(port: port) }
        for client in clients { client.request("/sse?count=1000000&interval_ms=1000") }
        for client in clients { #expect(!client.read(for: 100).bytes.isEmpty) }
        #expect(server.statistics.activeConnections == 3)

        server.stop()
        #expect(!server.isRunning)
        #expect(server.statistics.activeConnections == 0)
        for client in clients { #expect(client.readToEnd().end != .timeout) }
        #expect(throws: (any Error).self) { try TestServerRawClient(port: port) }

        // Restart on the same port while the old connections are in TIME_WAIT.
        try server.start()
        defer { server.stop() }
        #expect(server.port == port)
        #expect(try TestServerRawClient.fetch(port: port, "/sse?count=1").statusCode == 200)
        #expect(server.statistics.connectionsAccepted == 4)
    }

    @Test func stopIsIdempotentAndDeinitStops() throws {
        var server: TestServer? = TestServer()
        try server?.start()
        let port = try #require(server?.port)
        server?.stop()
        server?.stop()
        try server?.start()
        server = nil
        #expect(throws: (any Error).self) { try TestServerRawClient(port: port) }
    }

    @Test func startFailsWhenThePortIsTaken() throws {
        let first = TestServer()
        try first.start()
        defer { first.stop() }
        let second = TestServer(configuration: .init(port: first.port))
        #expect(throws: (any Error).self) { try second.start() }
    }

    @Test func customRoutesTakePrecedence() throws {
        let server = TestServer(configuration: .init(routes: [
            "/sse": { writer in
                try writer.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .closeDelimited)
                try writer.write("data: custom \(writer.request.query["n"] ?? "")\n\n")
            },
        ]))
        try server.start()
        defer { server.stop() }
        let response = try TestServerRawClient.fetch(port: server.port, "/sse?n=5")
        #expect(String(decoding: response.body, as: UTF8.self) == "data: custom 5\n\n")

        server.setHandler(path: "/script") { writer in
            writer.cutAfterBodyBytes = 4
            try writer.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .contentLength(100))
            try writer.write("data: never finished")
        }
        let cut = try TestServerRawClient.fetch(port: server.port, "/script")
        #expect(cut.body == Array("data".utf8))
        #expect(server.statistics.cuts == 1)

        server.setHandler(path: "/broken") { _ in throw CancellationError() }
        #expect(try TestServerRawClient.fetch(port: server.port, "/broken").statusCode == 500)
        #expect(try TestServerRawClient.fetch(port: server.port, "/nothing-here").statusCode == 404)
        let help = try TestServerRawClient.fetch(port: server.port, "/help")
        #expect(String(decoding: help.body, as: UTF8.self) == TestServer.endpointReference)
        #expect(server.requests(path: "/script").count == 1)
        server.clearRequests()
        #expect(server.requests.isEmpty)
    }

    @Test func aHandlerCanStopTheServer() throws {
        let server = TestServer()
        try server.start()
        server.setHandler(path: "/stop") { [weak server] writer in
            let started = ContinuousClock.now
            server?.stop()
            let elapsed = ContinuousClock.now - started
            try writer.writeHead(status: 200, framing: .contentLength(0))
            // Waiting for its own thread would take the 10 s join timeout.
            #expect(elapsed < .seconds(5), "stop() from a handler does not wait for that handler: \(elapsed)")
        }
        _ = try TestServerRawClient.fetch(port: server.port, "/stop")
        #expect(!server.isRunning)
    }

    @Test func garbageRequestGets400() throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let client = try TestServerRawClient(port: server.port)
        client.send("NOT-HTTP\r\n\r\n")
        #expect(client.readToEnd().statusCode == 400)
    }

    @Test func manyConnectionsLeaveNothingBehind() throws {
        let server = TestServer()
        try server.start()
        let before = try openDescriptorCount()
        for _ in 0..<200 {
            _ = try TestServerRawClient.fetch(port: server.port, "/sse?count=2&cut=5")
        }
        server.stop()
        #expect(server.statistics.connectionsAccepted == 200)
        #expect(server.statistics.activeConnections == 0)
        // A leak would be one descriptor per connection; other suites running in parallel
        // open a few of their own, hence the margin.
        #expect(try openDescriptorCount() - before < 50)
    }

    private func openDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    /// An accept that fails (out of descriptors, a connection's own error) does not end the
    /// accept loop: the connection waiting behind it is still accepted. Only a listener that
    /// is gone (EINVAL, EBADF) ends it.
    @Test(arguments: [EMFILE, EPROTO, ECONNABORTED])
    func aFailedAcceptKeepsTheLoopAccepting(error: Int32) throws {
        let (listener, port) = try Socket.listen(ipv6: false, port: 0)
        defer { close(listener) }
        var pipe: [Int32] = [-1, -1]
        _ = Glibc.pipe(&pipe)
        let wake = pipe[0]
        defer { pipe.forEach { _ = close($0) } }
        let client = try TestServerRawClient(port: port)
        var calls = 0
        var failures: [Int32] = []
        var accepted: Int32 = -1
        Socket.acceptLoop(
            listener: listener, wakeFD: wake,
            accept: { fd in
                calls += 1
                guard calls == 1 else { return Glibc.accept(fd, nil, nil) }
                errno = error
                return -1
            },
            failed: { failures.append($0) },
            { fd in
                accepted = fd
                return false
            })
        defer { close(accepted) }
        #expect(accepted >= 0 && calls == 2)
        #expect(failures == [error])
        withExtendedLifetime(client) {}
    }

    @Test func aListenerThatIsGoneEndsTheAcceptLoop() throws {
        let (listener, port) = try Socket.listen(ipv6: false, port: 0)
        var pipe: [Int32] = [-1, -1]
        _ = Glibc.pipe(&pipe)
        let wake = pipe[0]
        defer { pipe.forEach { _ = close($0) } }
        let client = try TestServerRawClient(port: port)
        var handled = 0
        Socket.acceptLoop(listener: listener, wakeFD: wake, accept: { _ in errno = EINVAL; return -1 }) { _ in
            handled += 1
            return true
        }
        close(listener)
        #expect(handled == 0)
        withExtendedLifetime(client) {}
    }
}
