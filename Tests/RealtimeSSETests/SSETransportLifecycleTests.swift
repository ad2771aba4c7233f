#if os(Linux)
@_spi(Transport) import RealtimeCore
import RealtimeIO
@_spi(Transport) @testable import RealtimeSSE
import RealtimeTestServer
import RealtimeTestSupport
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Closing, cancellation, back-pressure and resource hygiene of ``SSETransport``.
@Suite("SSETransport: lifecycle", .timeLimit(.minutes(1)))
struct SSETransportLifecycleTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    @Test("close() before start(): one ended(cancelled), no request, start() then does nothing")
    func closeBeforeStart() async throws {
        let t = SSETransport(request: request(server.url("/sse?count=1")))
        t.close()
        t.close()
        let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
        var r = TransportRun()
        for await e in tEvents { r.events.append(e) }
        #expect(r.events.count == 1)
        #expect(r.end?.error?.code == .cancelled)
        #expect(r.end?.requestWasDelivered == false)
        #expect(server.requests(path: "/sse").isEmpty)
    }

    /// A loop shut down while a transfer runs on it frees the transfer's curl handle and
    /// header list with its driver (under `make test-asan`, LeakSanitizer holds this).
    @Test("a loop shut down with a transfer running frees the transfer")
    func loopShutDownWithATransferRunning() async throws {
        server.setHandler(path: "/silent") { w in try w.hold() }
        let loop = EventLoop(name: "shutdown-test")
        let transport = SSETransport(request: request(server.url("/silent")), eventLoop: loop)
        _ = transport.eventStream(capacity: transport.request.eventBufferCapacity)
        #expect(await eventually { server.requests(path: "/silent").count == 1 })
        #expect(await loop.submit { CurlMultiDriver.on(loop).activeTransfers } == 1)
        try await offloaded { loop.shutdown() }
    }

    @Test("close() while connecting ends at once with cancelled")
    func closeWhileConnecting() async throws {
        server.setHandler(path: "/silent") { w in try w.hold() }
        // A connect timeout far beyond the test: on a loaded machine the test task may wait
        // seconds for a thread, and the outcome must not depend on that.
        let t = SSETransport(request: request(server.url("/silent")) { $0.connectTimeout = .seconds(120) })
        let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
        #expect(await eventually { server.requests(path: "/silent").count == 1 })
        t.close()
        var r = TransportRun()
        for await e in tEvents { r.events.append(e) }
        #expect(r.opened.isEmpty)
        #expect(r.end?.error?.code == .cancelled)
        #expect(await eventually { server.statistics.activeConnections == 0 })
    }

    @Test("close() while open: ended(cancelled) once, the server sees the connection go")
    func closeWhileOpen() async throws {
        let t = SSETransport(request: request(server.url("/sse?count=2&end=hold")))
        let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
        var r = TransportRun()
        for await e in tEvents {
            r.events.append(e)
            if r.messages.count == 2 {
                t.close()
                t.close()
            }
        }
        #expect(r.ids == ["1", "2"])
        #expect(r.ends.count == 1)
        #expect(r.end?.error?.code == .cancelled)
        #expect(r.end?.requestWasDelivered == true)
        #expect(await eventually { server.statistics.activeConnections == 0 })
    }

    @Test("cancelling the consuming task closes the connection")
    func consumerCancellation() async throws {
        let t = SSETransport(request: request(server.url("/sse?count=1&end=hold")))
        let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
        let got = LockedValue(0)
        let consumer = Task {
            for await e in tEvents {
                if case .message = e { got.withLock { $0 += 1 } }
            }
        }
        #expect(await eventually { got.withLock { $0 } == 1 })
        #expect(server.statistics.activeConnections == 1)
        consumer.cancel()
        await consumer.value
        #expect(await eventually { server.statistics.activeConnections == 0 })
    }

    @Test("close() from many threads at once yields exactly one ended")
    func concurrentClose() async throws {
        let t = SSETransport(request: request(server.url("/sse?count=1&end=hold")))
        let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
        await withTaskGroup(of: Void.self) { g in
            for _ in 0..<16 { g.addTask { t.close() } }
        }
        var r = TransportRun()
        for await e in tEvents { r.events.append(e) }
        #expect(r.ends.count == 1)
        #expect(r.end != nil)
    }

    @Test("back-pressure: a stalled consumer pauses reading; nothing is lost after it resumes")
    func backPressure() async throws {
        let count = 50_000
        let capacity = 32
        let t = SSETransport(request: request(server.url("/sse?count=\(count)&size=100")) {
            $0.eventBufferCapacity = capacity
        })
        let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
        // The consumer does not read: the channel fills (however slowly a loaded machine
        // serves), and curl's pause with TCP flow control must stop the producer near
        // capacity: at most one receive buffer (64 KiB ≈ 560 events of ~117 bytes) beyond it.
        // (That the pause is not silence for the idle timeout is an embedded-loop test.)
        #expect(await eventually(within: .seconds(20)) { tEvents.bufferedCount >= capacity })
        await WallTime.hold(for: .milliseconds(2000))  // a window for curl and the kernel to overrun the pause
        let buffered = tEvents.bufferedCount
        #expect(buffered >= capacity)
        #expect(buffered <= capacity + 600)
        let rssWhilePaused = ProcessResources.residentBytes
        var ids: [String] = []
        var end: TransportEnd?
        for await e in tEvents {
            switch e {
            case .message(let m): ids.append(m.id ?? "")
            case .ended(let e): end = e
            default: break
            }
        }
        #expect(ids.count == count)
        #expect(ids == decimalIDs(1...count))
        #expect(end?.clean == true)
        #expect(rssWhilePaused > 0)
    }

    @Test("a finished or closed transport and its connection are deallocated (no reference cycle)")
    func noCycle() async throws {
        weak var finished: SSETransport?
        weak var closed: SSETransport?
        let finishedConnection = WeakBox()
        let closedConnection = WeakBox()
        do {
            let a = SSETransport(request: request(server.url("/sse?count=2&end=hold")))
            finished = a
            let aEvents = a.eventStream(capacity: a.request.eventBufferCapacity)
            for await e in aEvents {
                if case .message = e {
                    let box = a.connection
                    await EventLoop.shared.submit { finishedConnection.value = box.value }
                }
                if case .message(let m) = e, m.id == "2" { a.close() }
            }
            let b = SSETransport(request: request(server.url("/sse?count=2")))
            closed = b
            let bEvents = b.eventStream(capacity: b.request.eventBufferCapacity)
            for await e in bEvents {
                if case .opened = e {
                    let box = b.connection
                    await EventLoop.shared.submit { closedConnection.value = box.value }
                }
            }
        }
        // The loop may still hold the last task that touched them: let it drain.
        await EventLoop.shared.submit {}
        #expect(finished == nil)
        #expect(closed == nil)
        #expect(await EventLoop.shared.submit { finishedConnection.value == nil })
        #expect(await EventLoop.shared.submit { closedConnection.value == nil })
    }
}

/// Leaks per connection: 10,000 open/close cycles, in a suite of its own for its time limit
/// (about 25 s alone on two cores; the whole suite running beside it can double that).
/// Resident memory and descriptors are process-wide, so the cycles run in a child test
/// process of their own (``ChildTestProcess``), at normal priority: ten thousand opens are
/// CPU-bound and their hang guard is the child's timeout.
@Suite("SSETransport: open/close cycles", .timeLimit(.minutes(5)))
struct SSETransportOpenCloseCycleTests {
    static let childVariable = "RT_SSE_CYCLES_CHILD"

    @Test("10,000 open/close cycles leave memory and descriptors flat (own process)")
    func openCloseCycles() async throws {
        if ChildTestProcess.isChild(Self.childVariable, lowPriority: false) {
            let server = TestServer()
            try server.start()
            defer { server.stop() }
            try await Self.cycles(server)
            return
        }
        let (status, lines) = try await ChildTestProcess.relay(
            filter: "SSETransportOpenCloseCycleTests", variable: Self.childVariable, timeoutSeconds: 270,
            prefix: "SSE open/close")
        #expect(status == 0, "the cycles' child process failed (exit \(status))")
        #expect(lines.contains { $0.hasPrefix("SSE open/close ×10000:") }, "the cycles ran and reported their numbers")
    }

    static func cycles(_ server: TestServer) async throws {
        func cycle() async {
            let t = SSETransport(request: request(server.url("/sse?count=1&end=hold")))
            let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
            for await e in tEvents {
                if case .message = e { t.close() }
            }
        }
        // The in-process server records every request: forget them as we go, so only the
        // client side is measured.
        for _ in 0..<300 { await cycle() }  // Warm-up: caches, thread pools, allocator.
        server.clearRequests()
        #expect(await eventually { server.statistics.activeConnections == 0 })
        let fdsBefore = ProcessResources.openDescriptors
        let rssBefore = ProcessResources.residentBytes
        var rssMiddle = rssBefore
        var fdsMiddle = fdsBefore
        let started = ContinuousClock.now
        for i in 1...10_000 {
            await cycle()
            if i % 500 == 0 { server.clearRequests() }
            if i == 5_000 {
                rssMiddle = ProcessResources.residentBytes
                fdsMiddle = ProcessResources.openDescriptors
            }
        }
        let elapsed = ContinuousClock.now - started
        #expect(await eventually { server.statistics.activeConnections == 0 })
        let fdsAfter = ProcessResources.openDescriptors
        let rssAfter = ProcessResources.residentBytes
        print("SSE open/close ×10000: \(elapsed), RSS \(rssBefore / 1024) → \(rssMiddle / 1024) → \(rssAfter / 1024) KiB, fds \(fdsBefore) → \(fdsMiddle) → \(fdsAfter)")
        // A leak of one descriptor or one connection object per cycle would show as
        // thousands of descriptors / tens of MiB. A leak must show in BOTH halves (it grows
        // linearly); a burst of the allocator or the loop lands in one half only. A
        // 1 KiB-per-cycle leak adds 5 MiB per half; a leak of one descriptor per cycle, 5,000.
        #expect(min(fdsMiddle - fdsBefore, fdsAfter - fdsMiddle) < 50)
        #expect(fdsAfter - fdsBefore < 1_000)
        #expect(min(rssMiddle - rssBefore, rssAfter - rssMiddle) < 4 << 20)
        let active = await EventLoop.shared.submit { CurlMultiDriver.on(EventLoop.shared).activeTransfers }
        #expect(active < 50)
    }
}
#endif

/// A weak reference that can be handed to the loop thread.
final class WeakBox: @unchecked Sendable {
    weak var value: AnyObject?
}
