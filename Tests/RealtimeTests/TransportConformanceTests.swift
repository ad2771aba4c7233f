#if os(Linux)
import Dispatch
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// The ``Transport`` contract (`Sources/RealtimeCore/Transport/Transport.swift`), run
/// unchanged against the SSE and the WebSocket transport on loopback: every test takes the
/// kind as its argument and speaks to the server through a ``TransportFixture``.
@Suite(.timeLimit(.minutes(3)))
struct TransportConformanceTests {
    // MARK: Item 2: events in order, ending once

    @Test("open fills the connection info; messages arrive in order; one clean end, then nothing",
          arguments: TransportFixture.kinds)
    func openMessagesCleanEnd(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        let url = fixture.finite(50)
        let transport = fixture.make(url) { $0.attempt = 3 }
        let transcript = await TransportTranscript.record(transport)
        transcript.checkShape()
        let info = try #require(transcript.opened.first)
        #expect(info.transport == kind)
        #expect(info.url == url)
        #expect(info.status == fixture.openStatus)
        #expect(info.attempt == 3)
        #expect(!info.headers.fields.isEmpty)
        #expect(transcript.texts == (1...50).map { fixture.text($0) })
        let end = try #require(transcript.end)
        #expect(end.clean && end.error == nil, "\(transcript.summary)")
        #expect(end.code == fixture.cleanCloseCode)
    }

    // MARK: Item 4: partial data is never delivered

    @Test("a cut in the middle of a message delivers the whole ones before it and nothing of it",
          arguments: TransportFixture.kinds, [false, true])
    func cutMidMessage(kind: TransportKind, reset: Bool) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        let transcript = await TransportTranscript.record(fixture.make(fixture.cutMidMessage(after: 3, reset: reset)))
        transcript.checkShape()
        #expect(transcript.texts == (1...3).map { fixture.text($0, size: 100) })
        let end = try #require(transcript.end)
        #expect(!end.clean)
        #expect(end.error?.failureClass == .network, "\(transcript.summary)")
        #expect(end.requestWasDelivered)
    }

    // MARK: Item 3: back-pressure

    @Test("a stalled consumer stops the server by TCP; nothing is lost when it reads again",
          arguments: TransportFixture.kinds)
    func backPressure(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        // 20 MB: several times what loopback's socket buffers hold (4 MB and more). That a pause is not silence for
        // the idle timeout is an embedded test of each transport (no idle timeout here: the
        // whole suite on two cores can starve the server's thread for seconds).
        let count = 20_000, size = 1_000, capacity = 8
        let transport = fixture.make(fixture.finite(count, size: size)) {
            $0.eventBufferCapacity = capacity
            $0.idleTimeout = nil
        }
        let events = transport.eventStream(capacity: capacity)
        var iterator = events.makeAsyncIterator()
        guard case .opened? = await iterator.next() else { Issue.record("no opened"); return }
        let written = await Self.plateau(quietFor: .milliseconds(2000)) { fixture.server.statistics.bytesWritten }
        let buffered = events.bufferedCount
        print("Conformance back-pressure (\(kind)): server stopped after \(written / 1024) KiB of \(count * size / 1024) KiB; \(buffered) messages buffered (capacity \(capacity))")
        #expect(written < count * size / 2, "the server was not stopped: \(written) bytes written")
        // At least `capacity` events were buffered when reading paused; `opened`, which the
        // test has taken since, may have been one of them.
        #expect(buffered >= capacity - 1 && buffered <= capacity + 128)
        var received = 0
        var end: TransportEnd?
        while let event = await iterator.next() {
            switch event {
            case .message(let message):
                received += 1
                if message.text != fixture.text(received, size: size) {
                    Issue.record("message \(received) is \(message.text?.prefix(20) ?? "binary")")
                    return
                }
            case .ended(let e): end = e
            default: break
            }
        }
        #expect(received == count)
        #expect(end?.clean == true && end?.error == nil, "\(String(describing: end))")
    }

    /// Samples `value` every 50 ms and returns it once it stayed the same for `quietFor` (or
    /// after 20 s, whatever it is then).
    static func plateau(quietFor: Duration, _ value: @Sendable () -> Int) async -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        var last = value()
        var since = clock.now
        while clock.now < deadline {
            await WallTime.hold(for: .milliseconds(50))
            let now = value()
            if now != last {
                last = now
                since = clock.now
            } else if clock.now - since >= quietFor, now > 0 {
                return now
            }
        }
        return last
    }

    // MARK: Item 6: closing in every phase

    enum Phase: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case beforeStart, connecting, awaitingHead, open, ended
        var testDescription: String { rawValue }
    }

    @Test("close() is idempotent from many threads in every phase: cancelled unless already ended, socket released",
          arguments: TransportFixture.kinds, Phase.allCases)
    func closeInEveryPhase(kind: TransportKind, phase: Phase) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        switch phase {
        case .beforeStart: try await closeBeforeStart(fixture)
        case .connecting: try await closeWhileConnecting(fixture)
        case .awaitingHead: try await closeAwaitingHead(fixture)
        case .open: try await closeWhileOpen(fixture)
        case .ended: try await closeAfterTheEnd(fixture)
        }
    }

    /// Calls `close()` from `threads` threads at once and waits for all of them.
    static func closeFromManyThreads(_ transport: any Transport, threads: Int = 8) {
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread {
                transport.close()
                group.leave()
            }.start()
        }
        group.wait()
    }

    private func closeBeforeStart(_ fixture: TransportFixture) async throws {
        let transport = fixture.make(fixture.held(1))
        Self.closeFromManyThreads(transport)
        let events = transport.eventStream()
        let transcript = await TransportTranscript.record(events)
        #expect(transcript.events.count == 1, "\(transcript.summary)")
        #expect(transcript.end?.error?.code == .cancelled)
        #expect(transcript.end?.requestWasDelivered == false)
        #expect(fixture.server.requests.isEmpty)
    }

    private func closeWhileConnecting(_ fixture: TransportFixture) async throws {
        let listener = try SaturatedListener()
        let transport = fixture.make(fixture.elsewhere(host: "127.0.0.1", port: listener.port))
        let events = transport.eventStream()
        // The filler's socket and the transport's, which waits for a SYN-ACK that never comes.
        try await bounded("the transport's connecting socket", seconds: 30) {
            ProcessResources.tcpSocketDescriptors(toPort: listener.port) == 2
        }
        Self.closeFromManyThreads(transport)
        let transcript = await TransportTranscript.record(events)
        transcript.checkShape()
        #expect(transcript.opened.isEmpty)
        #expect(transcript.end?.error?.code == .cancelled, "\(transcript.summary)")
        #expect(transcript.end?.requestWasDelivered == false)
        await eventually("the connecting socket released") {
            ProcessResources.tcpSocketDescriptors(toPort: listener.port) == 1
        }
    }

    private func closeAwaitingHead(_ fixture: TransportFixture) async throws {
        let transport = fixture.make(fixture.silent)
        let events = transport.eventStream()
        try await bounded("the request at the server", seconds: 30) { fixture.server.requests(path: "/silent").count == 1 }
        Self.closeFromManyThreads(transport)
        let transcript = await TransportTranscript.record(events)
        transcript.checkShape()
        #expect(transcript.opened.isEmpty)
        #expect(transcript.end?.error?.code == .cancelled, "\(transcript.summary)")
        #expect(transcript.end?.requestWasDelivered == true, "the server read the request")
        await expectReleased(fixture)
    }

    private func closeWhileOpen(_ fixture: TransportFixture) async throws {
        let transport = fixture.make(fixture.held(2))
        let events = transport.eventStream()
        var transcript = TransportTranscript()
        for await event in events {
            transcript.events.append(event)
            if transcript.messages.count == 2 { Self.closeFromManyThreads(transport) }
        }
        transcript.checkShape()
        #expect(transcript.texts == [fixture.text(1), fixture.text(2)])
        #expect(transcript.end?.error?.code == .cancelled, "\(transcript.summary)")
        await expectReleased(fixture)
    }

    private func closeAfterTheEnd(_ fixture: TransportFixture) async throws {
        let transport = fixture.make(fixture.finite(2))
        let events = transport.eventStream()
        let transcript = await TransportTranscript.record(events)
        #expect(transcript.end?.clean == true && transcript.end?.error == nil, "\(transcript.summary)")
        Self.closeFromManyThreads(transport)
        transport.abort()
        let after = await TransportTranscript.record(events)
        #expect(after.events.isEmpty, "after the end: \(after.summary)")
        await expectReleased(fixture)
    }

    /// The server saw the connection go, and no socket of ours still points at it.
    private func expectReleased(_ fixture: TransportFixture, sourceLocation: SourceLocation = #_sourceLocation) async {
        await eventually("the server to see the connection close", sourceLocation: sourceLocation) {
            fixture.server.statistics.activeConnections == 0
        }
        await eventually("our socket to be closed", sourceLocation: sourceLocation) {
            ProcessResources.tcpSocketDescriptors(toPort: fixture.server.port) == 0
        }
    }

    @Test("cancelling the consuming task closes the connection", arguments: TransportFixture.kinds)
    func consumerCancellation(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        let transport = fixture.make(fixture.held(1))
        let events = transport.eventStream()
        let received = LockedValue(0)
        let consumer = Task {
            for await event in events {
                if case .message = event { received.withLock { $0 += 1 } }
            }
        }
        try await bounded("the first message", seconds: 30) { received.withLock { $0 } == 1 }
        consumer.cancel()
        await consumer.value
        await expectReleased(fixture)
    }

    // MARK: abort()

    @Test("abort() ends at once with cancelled, without a closing handshake; idempotent",
          arguments: TransportFixture.kinds)
    func abort(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        let early = fixture.make(fixture.held(1))
        early.abort()
        let before = await TransportTranscript.record(early)
        #expect(before.events.count == 1 && before.end?.error?.code == .cancelled, "\(before.summary)")

        // A server that never answers a close frame: abort() must not wait for one.
        let transport = fixture.make(fixture.deaf)
        let events = transport.eventStream()
        var transcript = TransportTranscript()
        let clock = ContinuousClock()
        var abortedAt: ContinuousClock.Instant?
        for await event in events {
            transcript.events.append(event)
            if case .message = event {
                abortedAt = clock.now
                transport.abort()
                transport.abort()
                transport.close()
            }
        }
        let took = abortedAt.map { clock.now - $0 }
        transcript.checkShape()
        #expect(transcript.end?.error?.code == .cancelled, "\(transcript.summary)")
        #expect(took.map { $0 < TransportFixture.closeTimeout / 2 } == true, "abort took \(String(describing: took))")
        await expectReleased(fixture)
    }

    // MARK: Item 7: never harm the host

    @Test("the connection's socket is close-on-exec: a process the host spawns does not keep it open",
          arguments: TransportFixture.kinds)
    func socketsAreCloseOnExec(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        let transport = fixture.make(fixture.held(1))
        let events = transport.eventStream()
        for await event in events {
            guard case .message = event else { continue }
            let sockets = OpenSockets.connected(toPort: fixture.server.port)
            #expect(!sockets.isEmpty, "no socket of this process is connected to the server")
            #expect(sockets.allSatisfy { fcntl($0, F_GETFD) & FD_CLOEXEC != 0 }, "inheritable sockets: \(sockets)")
            transport.close()
        }
    }

    // MARK: Timeouts and item 8: verifyConnection

    @Test("a connection that delivers nothing for the idle timeout ends with idle_timeout",
          arguments: TransportFixture.kinds)
    func idleTimeout(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        let transcript = await TransportTranscript.record(fixture.make(fixture.stalled) { $0.idleTimeout = .milliseconds(300) })
        transcript.checkShape()
        #expect(transcript.opened.count == 1)
        #expect(transcript.end?.error?.code == .idleTimeout, "\(transcript.summary)")
        #expect(transcript.end?.error?.failureClass == .timeout)
        await expectReleased(fixture)
    }

    /// The probe's timing (a live peer passes, a probe before the open is ignored) is tested on
    /// the embedded loop for both transports (`WebSocketEmbeddedTimerTests`,
    /// `SSEConnectionEmbeddedTests`); here, that a real silent peer fails it.
    @Test("verifyConnection: a silent peer ends the attempt with idle_timeout", arguments: TransportFixture.kinds)
    func verifyConnection(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        let silent = fixture.make(fixture.stalled)
        let silentEvents = silent.eventStream()
        var iterator = silentEvents.makeAsyncIterator()
        guard case .opened? = await iterator.next() else { Issue.record("no opened"); return }
        // Without the check the connection would stay open (no idle timeout is set); the
        // suite's time limit bounds the wait.
        silent.verifyConnection(within: .milliseconds(300))
        guard case .ended(let end)? = await iterator.next() else { Issue.record("not ended"); return }
        #expect(end.error?.code == .idleTimeout, "\(String(describing: end.error))")
    }

    // MARK: Errors classified the same on both

    enum Failure: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case refused, reset, dnsFailure, unknownCA, unavailable503, unauthorized401, connectTimeout
        var testDescription: String { rawValue }

        /// The class both transports report, whether the request can have reached the server,
        /// and the status carried.
        var expected: (failureClass: RealtimeError.FailureClass, delivered: Bool, status: Int?) {
            switch self {
            case .refused: (.network, false, nil)
            case .reset: (.network, true, nil)
            case .dnsFailure: (.dns, false, nil)
            case .unknownCA: (.tls, false, nil)
            case .unavailable503: (.http, true, 503)
            case .unauthorized401: (.http, true, 401)
            case .connectTimeout: (.timeout, true, nil)
            }
        }

        /// The code each transport reports (they differ only where the protocols do).
        func code(_ kind: TransportKind) -> RealtimeError.Code? {
            switch self {
            case .refused: .network
            case .reset: nil  // `network` or `remote_closed`: both class network
            case .dnsFailure: .dnsFailure
            case .unknownCA: .tls
            case .unavailable503, .unauthorized401: kind == .sse ? .httpStatus : .handshake
            case .connectTimeout: .connectTimeout
            }
        }
    }

    @Test("failures are classified the same on both transports", arguments: TransportFixture.kinds, Failure.allCases)
    func errorsClassified(kind: TransportKind, failure: Failure) async throws {
        // Certificates are generated off the cooperative threads (openssl runs synchronously).
        let tls = failure == .unknownCA ? try await offloaded { TestServer.Configuration.TLS(certificates: try TestCertificates.shared()) } : nil
        let fixture = try TransportFixture(kind, tls: tls)
        defer { fixture.server.stop() }
        let closedPort = try ClosedPort()
        let transcript = await TransportTranscript.record(transport(for: failure, fixture, closedPort: closedPort.port))
        withExtendedLifetime(closedPort) {}
        transcript.checkShape()
        let error = try #require(transcript.end?.error, "\(transcript.summary)")
        let expected = failure.expected
        #expect(error.failureClass == expected.failureClass, "\(error)")
        if let code = failure.code(kind) { #expect(error.code == code, "\(error)") }
        #expect(error.status == expected.status, "\(error)")
        #expect(transcript.end?.requestWasDelivered == expected.delivered)
        #expect(transcript.end?.clean == false)
        #expect(transcript.opened.count == (failure == .reset ? 1 : 0))
    }

    private func transport(for failure: Failure, _ fixture: TransportFixture, closedPort: UInt16) -> any Transport {
        switch failure {
        case .refused: return fixture.make(fixture.elsewhere(host: "127.0.0.1", port: closedPort))
        case .reset: return fixture.make(fixture.cutMidMessage(after: 1, reset: true))
        case .dnsFailure: return fixture.make(fixture.elsewhere(host: "no-such-host.invalid", port: 80))
        case .unknownCA: return fixture.make(fixture.held(1))  // the system store does not know the test CA
        case .unavailable503: return fixture.make(fixture.refused(503))
        case .unauthorized401: return fixture.make(fixture.authorized("right")) { $0.headers = ["Authorization": "Bearer wrong"] }
        // Long enough that a loaded loop (a sanitizer build running every suite) has written
        // the request, so it counts as delivered, before the deadline; the silent server never
        // answers either way.
        case .connectTimeout: return fixture.make(fixture.silent) { $0.connectTimeout = .seconds(6) }
        }
    }

    // MARK: Item 5: sending

    @Test("send: SSE cannot; a WebSocket that ended is not connected", arguments: TransportFixture.kinds)
    func sendAfterTheEnd(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        let transport = fixture.make(fixture.finite(1))
        _ = await TransportTranscript.record(transport)
        let expected: RealtimeError.Code = kind == .sse ? .sendNotSupported : .notConnected
        do {
            try await transport.send(.text("late"))
            Issue.record("send succeeded after the end")
        } catch let error as RealtimeError {
            #expect(error.code == expected, "\(error)")
        }
    }
}
#endif
