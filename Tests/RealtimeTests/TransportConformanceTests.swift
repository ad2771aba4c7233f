#if os(Linux)
import Dispatch
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// The ``Transport`` contract (`Sources/RealtimeCore/Transport/Transport.swift`), run
/// unchanged against the SSE and the WebSocket transport, each on two environments (see
/// ``ConformanceEnvironment``): the embedded loop, where time moves only when the test moves
/// it and every deadline is checked to the tick, and loopback against the test server. Every
/// test takes its row (``ConformanceCase``) as its argument and speaks to the peer through a
/// ``ConformanceRig``; what needs a kernel (sockets, TLS, DNS) runs on loopback only.
@Suite(.timeLimit(.minutes(3)))
struct TransportConformanceTests {
    // MARK: Item 2: events in order, ending once

    @Test("open fills the connection info; messages arrive in order; one clean end, then nothing",
          arguments: ConformanceCase.all)
    func openMessagesCleanEnd(row: ConformanceCase) async throws {
        let rig = try row.rig()
        defer { rig.stop() }
        let scenario = PeerScenario.finite(50)
        let transcript = await rig.record(rig.make(scenario) { $0.attempt = 3 })
        transcript.checkShape()
        let info = try #require(transcript.opened.first)
        #expect(info.transport == row.kind)
        #expect(info.url == rig.url(scenario))
        #expect(info.status == rig.openStatus)
        #expect(info.attempt == 3)
        #expect(!info.headers.fields.isEmpty)
        #expect(transcript.texts == (1...50).map { rig.text($0) })
        let end = try #require(transcript.end)
        #expect(end.clean && end.error == nil, "\(transcript.summary)")
        #expect(end.code == rig.cleanCloseCode)
        await rig.expectReleased()
    }

    // MARK: Item 4: partial data is never delivered

    @Test("a cut in the middle of a message delivers the whole ones before it and nothing of it",
          arguments: ConformanceCase.all, [false, true])
    func cutMidMessage(row: ConformanceCase, reset: Bool) async throws {
        let rig = try row.rig()
        defer { rig.stop() }
        let transcript = await rig.record(rig.make(.cut(after: 3, reset: reset)))
        transcript.checkShape()
        #expect(transcript.texts == (1...3).map { rig.text($0, size: 100) })
        let end = try #require(transcript.end)
        #expect(!end.clean)
        #expect(end.error?.failureClass == .network, "\(transcript.summary)")
        #expect(end.requestWasDelivered)
        #expect(end.code == rig.abnormalCloseCode)
    }

    // MARK: Item 3: back-pressure

    @Test("a stalled consumer stops the transport reading; nothing is lost when it reads again",
          arguments: ConformanceCase.all)
    func backPressure(row: ConformanceCase) async throws {
        let rig = try row.rig()
        defer { rig.stop() }
        // Loopback: 20 MB, several times what loopback's socket buffers hold (4 MB and more).
        // That a pause is not silence for the idle timeout is an embedded test of each
        // transport (no idle timeout here: the whole suite on two cores can starve the
        // server's thread for seconds).
        let count = row.environment == .loopback ? 20_000 : 2_000, size = 1_000, capacity = 8
        let transport = rig.make(.finite(count, size: size)) {
            $0.eventBufferCapacity = capacity
            $0.idleTimeout = nil
        }
        let events = rig.start(transport, capacity: capacity)
        guard case .opened? = await rig.next(events) else { Issue.record("no opened"); return }
        if let fixture = rig as? TransportFixture {
            let written = await Self.plateau(quietFor: .milliseconds(2000)) { fixture.server.statistics.bytesWritten }
            print("Conformance back-pressure (\(row.kind)): server stopped after \(written / 1024) KiB of \(count * size / 1024) KiB; \(events.stream.bufferedCount) messages buffered (capacity \(capacity))")
            #expect(written < count * size / 2, "the server was not stopped: \(written) bytes written")
        } else if let rig = rig as? EmbeddedRig {
            rig.settle()
            #expect(rig.readingPaused, "the transport kept reading from the peer")
        }
        // At least `capacity` events were buffered when reading paused; `opened`, which the
        // test has taken since, may have been one of them.
        let buffered = events.stream.bufferedCount
        #expect(buffered >= capacity - 1 && buffered <= capacity + 128, "\(buffered) buffered")
        var received = 0
        var end: TransportEnd?
        while let event = await rig.next(events) {
            switch event {
            case .message(let message):
                received += 1
                if message.text != rig.text(received, size: size) {
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
          arguments: ConformanceCase.all, Phase.allCases)
    func closeInEveryPhase(row: ConformanceCase, phase: Phase) async throws {
        let rig = try row.rig()
        defer { rig.stop() }
        switch phase {
        case .beforeStart: await closeBeforeStart(rig)
        case .connecting: try await closeWhileConnecting(rig)
        case .awaitingHead: try await closeAwaitingHead(rig)
        case .open: await closeWhileOpen(rig)
        case .ended: await closeAfterTheEnd(rig)
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

    private func closeBeforeStart(_ rig: any ConformanceRig) async {
        let transport = rig.make(.held(1))
        Self.closeFromManyThreads(transport)
        let transcript = await rig.record(transport)
        #expect(transcript.events.count == 1, "\(transcript.summary)")
        #expect(transcript.end?.error?.code == .cancelled)
        #expect(transcript.end?.requestWasDelivered == false)
        #expect(rig.requestCount == 0)
        if let embedded = rig as? EmbeddedRig { #expect(embedded.attempts == 0, "a stream or transfer was opened") }
    }

    private func closeWhileConnecting(_ rig: any ConformanceRig) async throws {
        let listener = rig.environment == .loopback ? try SaturatedListener() : nil
        let transport: any Transport
        if let listener, let fixture = rig as? TransportFixture {
            transport = fixture.make(fixture.elsewhere(host: "127.0.0.1", port: listener.port))
        } else {
            transport = rig.make(.unreachable)
        }
        let events = rig.start(transport)
        if let listener {
            // The filler's socket and the transport's, which waits for a SYN-ACK that never comes.
            try await bounded("the transport's connecting socket", seconds: 30) {
                ProcessResources.tcpSocketDescriptors(toPort: listener.port) == 2
            }
        }
        Self.closeFromManyThreads(transport)
        let transcript = await rig.record(events)
        transcript.checkShape()
        #expect(transcript.opened.isEmpty)
        #expect(transcript.end?.error?.code == .cancelled, "\(transcript.summary)")
        #expect(transcript.end?.requestWasDelivered == false)
        if let listener {
            await eventually("the connecting socket released") {
                ProcessResources.tcpSocketDescriptors(toPort: listener.port) == 1
            }
        } else {
            await rig.expectReleased()
        }
    }

    private func closeAwaitingHead(_ rig: any ConformanceRig) async throws {
        let transport = rig.make(.silent)
        let events = rig.start(transport)
        try await rig.reach("the request at the server") { rig.requestCount == 1 }
        Self.closeFromManyThreads(transport)
        let transcript = await rig.record(events)
        transcript.checkShape()
        #expect(transcript.opened.isEmpty)
        #expect(transcript.end?.error?.code == .cancelled, "\(transcript.summary)")
        #expect(transcript.end?.requestWasDelivered == true, "the server read the request")
        await rig.expectReleased()
    }

    private func closeWhileOpen(_ rig: any ConformanceRig) async {
        let transport = rig.make(.held(2))
        let events = rig.start(transport)
        var transcript = TransportTranscript()
        while let event = await rig.next(events) {
            transcript.events.append(event)
            if transcript.messages.count == 2, case .message = event { Self.closeFromManyThreads(transport) }
        }
        transcript.checkShape()
        #expect(transcript.texts == [rig.text(1), rig.text(2)])
        #expect(transcript.end?.error?.code == .cancelled, "\(transcript.summary)")
        await rig.expectReleased()
    }

    private func closeAfterTheEnd(_ rig: any ConformanceRig) async {
        let transport = rig.make(.finite(2))
        let events = rig.start(transport)
        let transcript = await rig.record(events)
        #expect(transcript.end?.clean == true && transcript.end?.error == nil, "\(transcript.summary)")
        Self.closeFromManyThreads(transport)
        transport.abort()
        rig.settle()
        let after = await rig.record(events)
        #expect(after.events.isEmpty, "after the end: \(after.summary)")
        await rig.expectReleased()
    }

    @Test("cancelling the consuming task closes the connection", arguments: ConformanceCase.loopback)
    func consumerCancellation(row: ConformanceCase) async throws {
        let fixture = try TransportFixture(row.kind)
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
        await fixture.expectReleased()
    }

    // MARK: abort()

    @Test("abort() ends at once with cancelled, without a closing handshake; idempotent",
          arguments: ConformanceCase.all)
    func abort(row: ConformanceCase) async throws {
        let rig = try row.rig()
        defer { rig.stop() }
        let early = rig.make(.held(1))
        early.abort()
        let before = await rig.record(early)
        #expect(before.events.count == 1 && before.end?.error?.code == .cancelled, "\(before.summary)")

        // A peer that never answers a close frame: abort() must not wait for one (embedded:
        // the end comes without time passing).
        let transport = rig.make(.deaf)
        let events = rig.start(transport)
        var transcript = TransportTranscript()
        let clock = ContinuousClock()
        var abortedAt: ContinuousClock.Instant?
        while let event = await rig.next(events) {
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
        if row.environment == .loopback {
            #expect(took.map { $0 < TransportFixture.closeTimeout / 2 } == true, "abort took \(String(describing: took))")
        }
        await rig.expectReleased()
    }

    /// Embedded only: on loopback the WebSocket row would wait out the suite's 20 s close
    /// timeout, which is long so that anything else waiting for it shows.
    @Test("close() against a peer that never answers ends by the close timeout: WebSocket at its instant, SSE at once",
          arguments: ConformanceCase.embedded)
    func closeTimeout(row: ConformanceCase) async throws {
        let rig = try row.rig()
        defer { rig.stop() }
        let transport = rig.make(.deaf)
        let events = rig.start(transport)
        let before = await rig.record(events)
        #expect(before.messages.count == 1 && before.ends.isEmpty, "\(before.summary)")
        transport.close()
        let rest = row.kind == .webSocket
            ? await rig.record(events, endingAfter: TransportFixture.closeTimeout) : await rig.record(events)
        #expect(rest.ends.count == 1 && rest.end?.error?.code == .cancelled, "\(rest.summary)")
        await rig.expectReleased()
    }

    // MARK: Item 7: never harm the host

    @Test("the connection's socket is close-on-exec: a process the host spawns does not keep it open",
          arguments: ConformanceCase.loopback)
    func socketsAreCloseOnExec(row: ConformanceCase) async throws {
        let fixture = try TransportFixture(row.kind)
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

    @Test("a connection that delivers nothing for the idle timeout ends with idle_timeout, not a tick sooner",
          arguments: ConformanceCase.all)
    func idleTimeout(row: ConformanceCase) async throws {
        let rig = try row.rig()
        defer { rig.stop() }
        let events = rig.start(rig.make(.stalled) { $0.idleTimeout = .milliseconds(300) })
        let transcript = await rig.record(events, endingAfter: .milliseconds(300))
        transcript.checkShape()
        #expect(transcript.opened.count == 1)
        #expect(transcript.end?.error?.code == .idleTimeout, "\(transcript.summary)")
        #expect(transcript.end?.error?.failureClass == .timeout)
        #expect(transcript.end?.code == rig.abnormalCloseCode)
        await rig.expectReleased()
    }

    /// That a live peer passes the probe and that a probe before the open is ignored are
    /// tested on the embedded loop for each transport (`WebSocketEmbeddedTimerTests`,
    /// `SSEConnectionEmbeddedTests`); here, that a silent peer fails it at its deadline.
    @Test("verifyConnection: a silent peer ends the attempt with idle_timeout", arguments: ConformanceCase.all)
    func verifyConnection(row: ConformanceCase) async throws {
        let rig = try row.rig()
        defer { rig.stop() }
        let silent = rig.make(.stalled)
        let events = rig.start(silent)
        guard case .opened? = await rig.next(events) else { Issue.record("no opened"); return }
        // Bytes read at the probe's own instant would count as its answer.
        rig.pass(.seconds(1))
        // Without the check the connection would stay open (no idle timeout is set); the
        // suite's time limit bounds the wait on loopback.
        silent.verifyConnection(within: .milliseconds(300))
        let rest = await rig.record(events, endingAfter: .milliseconds(300))
        #expect(rest.ends.count == 1 && rest.end?.error?.code == .idleTimeout, "\(rest.summary)")
        #expect(rest.end?.code == rig.abnormalCloseCode)
        await rig.expectReleased()
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

    /// A failure on one row; DNS and TLS need a kernel and a resolver, so they run on loopback only.
    struct FailureRow: Sendable, CustomTestStringConvertible {
        let row: ConformanceCase
        let failure: Failure
        var testDescription: String { "\(row.testDescription) \(failure.rawValue)" }

        static let all: [FailureRow] = ConformanceCase.all.flatMap { row in
            Failure.allCases.filter { row.environment == .loopback || ($0 != .dnsFailure && $0 != .unknownCA) }
                .map { FailureRow(row: row, failure: $0) }
        }
    }

    @Test("failures are classified the same on both transports", arguments: FailureRow.all)
    func errorsClassified(_ failureRow: FailureRow) async throws {
        let failure = failureRow.failure, kind = failureRow.row.kind
        let rig: any ConformanceRig
        let transport: any Transport
        let closedPort = try ClosedPort()
        if failureRow.row.environment == .loopback {
            // Certificates are generated off the cooperative threads (openssl runs synchronously).
            let tls = failure == .unknownCA ? try await offloaded { TestServer.Configuration.TLS(certificates: try TestCertificates.shared()) } : nil
            let fixture = try TransportFixture(kind, tls: tls)
            (rig, transport) = (fixture, self.transport(for: failure, fixture, closedPort: closedPort.port))
        } else {
            let embedded = EmbeddedRig(kind)
            (rig, transport) = (embedded, self.transport(for: failure, embedded))
        }
        defer { rig.stop() }
        let events = rig.start(transport)
        let transcript = failure == .connectTimeout
            ? await rig.record(events, endingAfter: Self.connectTimeout) : await rig.record(events)
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

    /// Long enough that a loaded loop (a sanitizer build running every suite) has written the
    /// request, so it counts as delivered, before the deadline; the silent server never
    /// answers either way.
    static let connectTimeout = Duration.seconds(6)

    private func transport(for failure: Failure, _ fixture: TransportFixture, closedPort: UInt16) -> any Transport {
        switch failure {
        case .refused: return fixture.make(fixture.elsewhere(host: "127.0.0.1", port: closedPort))
        case .reset: return fixture.make(fixture.cutMidMessage(after: 1, reset: true))
        case .dnsFailure: return fixture.make(fixture.elsewhere(host: "no-such-host.invalid", port: 80))
        case .unknownCA: return fixture.make(fixture.held(1))  // the system store does not know the test CA
        case .unavailable503: return fixture.make(fixture.refused(503))
        case .unauthorized401: return fixture.make(fixture.authorized("right")) { $0.headers = ["Authorization": "Bearer wrong"] }
        case .connectTimeout: return fixture.make(fixture.silent) { $0.connectTimeout = Self.connectTimeout }
        }
    }

    private func transport(for failure: Failure, _ rig: EmbeddedRig) -> any Transport {
        switch failure {
        case .refused: rig.make(.connectionRefused)
        case .reset: rig.make(.cut(after: 1, reset: true))
        case .dnsFailure, .unknownCA: preconditionFailure("\(failure) runs on loopback only")
        case .unavailable503: rig.make(.refused(503))
        case .unauthorized401: rig.make(.authorized("right")) { $0.headers = ["Authorization": "Bearer wrong"] }
        case .connectTimeout: rig.make(.silent) { $0.connectTimeout = Self.connectTimeout }
        }
    }

    // MARK: Item 5: sending

    @Test("send: SSE cannot; a WebSocket that ended is not connected", arguments: ConformanceCase.all)
    func sendAfterTheEnd(row: ConformanceCase) async throws {
        let rig = try row.rig()
        defer { rig.stop() }
        let transport = rig.make(.finite(1))
        _ = await rig.record(transport)
        let expected: RealtimeError.Code = row.kind == .sse ? .sendNotSupported : .notConnected
        do {
            try await transport.send(.text("late"))
            Issue.record("send succeeded after the end")
        } catch let error as RealtimeError {
            #expect(error.code == expected, "\(error)")
        }
    }
}
#endif
