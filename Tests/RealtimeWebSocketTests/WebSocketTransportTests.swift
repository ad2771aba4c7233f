import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import RealtimeIO
@_spi(Transport) @testable import RealtimeWebSocket

/// Transport behaviour that needs a kernel or a peer: the epoll loop's timer heap, SIGPIPE,
/// refused connections and DNS, send ordering from many tasks. The timeouts and the phases of
/// an attempt run on the embedded loop (`WebSocketEmbeddedTimerTests`,
/// `WebSocketEmbeddedLifecycleTests`).
@Suite(.timeLimit(.minutes(1))) struct WebSocketTransportTests {
    /// A transport released during its closing handshake (an application that closed and
    /// let go) finishes the handshake: its close timer holds the connection, so the server
    /// gets its time to answer, and when the timer ends the attempt nothing is left in the
    /// loop's heap.
    @Test func releasedWhileClosingFinishesTheHandshakeThenLeavesNothing() async throws {
        let server = try ScriptedServer { fd in ScriptedServer.ignore(fd, seconds: 20) }
        let loop = EventLoop(name: "t-ws-release")
        defer { loop.shutdown() }
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.closeTimeout = .milliseconds(200)
            var transport: WebSocketTransport? = WebSocketTransport(
                request: TransportRequest(url: server.url), options: options, eventLoop: loop)
            let events = transport!.eventStream()
            var iterator = events.makeAsyncIterator()
            while let event = await iterator.next() { if case .opened = event { break } }
            transport!.close()
            transport = nil
            #expect(await loop.submit { loop.pendingTimerCount } == 1, "the close timer bounds the handshake")
            var end: TransportEnd?
            while let event = await iterator.next() { if case .ended(let e) = event { end = e } }
            #expect(end?.error?.code == .cancelled, "the server never answered: the timer ended it")
            #expect(await loop.submit { loop.pendingTimerCount } == 0, "no timer left once the connection is gone")
        }
    }

    /// A transport released after its (own) loop shut down closes its socket all the same:
    /// the loop can no longer run the close, so the release does it.
    @Test func releasedAfterItsLoopShutDownClosesItsSocket() async throws {
        let server = try ScriptedServer { fd in ScriptedServer.ignore(fd, seconds: 20) }
        let port = UInt16(try #require(server.url.port))
        let loop = EventLoop(name: "t-ws-stopped")
        try await withDeadline {
            var transport: WebSocketTransport? = WebSocketTransport(
                request: TransportRequest(url: server.url), options: TransportProbe.quietOptions, eventLoop: loop)
            let events = transport!.eventStream()
            for await event in events { if case .opened = event { break } }
            #expect(ProcessResources.tcpSocketDescriptors(toPort: port) == 1)
            try await offloaded { loop.shutdown() }
            transport = nil
            #expect(ProcessResources.tcpSocketDescriptors(toPort: port) == 0, "the socket is closed with the transport")
        }
    }

    @Test func peerVanishingWhileWeWriteIsAnErrorNotSIGPIPE() async throws {
        let server = try ScriptedServer { fd in
            // Wait until the client is writing, then vanish with RST.
            var byte: UInt8 = 0
            _ = read(fd, &byte, 1)
            ScriptedServer.reset(fd)
        }
        try await withDeadline {
            let probe = TransportProbe(server.url)
            #expect(await probe.opened() != nil)
            let chunk = [UInt8](repeating: 7, count: 256 * 1024)
            var failures = 0
            for _ in 0..<40 {
                do { try await probe.transport.send(.binary(chunk), flush: true) } catch { failures += 1 }
            }
            // The process is still alive (no SIGPIPE) and the sends report the failure.
            #expect(failures > 0)
            let (end, _) = await probe.ended()
            #expect(end?.clean == false)
            #expect(end?.error != nil)
        }
    }

    @Test func connectionRefusedIsANetworkError() async throws {
        let closed = try ClosedPort()
        try await withDeadline {
            let probe = TransportProbe(URL(string: "ws://127.0.0.1:\(closed.port)/")!)
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .network)
            #expect(end?.requestWasDelivered == false)
        }
    }

    @Test func unresolvableHostIsADNSFailure() async throws {
        try await withDeadline {
            let probe = TransportProbe(URL(string: "ws://no-such-host.invalid/")!)
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .dnsFailure)
        }
    }

    @Test func sendsFromManyTasksKeepPerTaskOrderAndAllArrive() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline(30) {
            var options = TransportProbe.quietOptions
            options.outboundQueueCapacity = 4 // force senders to wait for room
            let probe = TransportProbe(peer.url("/echo"), options: options)
            #expect(await probe.opened() != nil)
            let transport = probe.transport
            let tasks = 8, perTask = 50
            try await withThrowingTaskGroup(of: Void.self) { group in
                for t in 0..<tasks {
                    group.addTask {
                        for i in 0..<perTask { try await transport.send(.text("\(t):\(i)")) }
                    }
                }
                try await group.waitForAll()
            }
            var next = [Int](repeating: 0, count: tasks)
            for _ in 0..<(tasks * perTask) {
                let text = try #require(await probe.message()?.text)
                let parts = text.split(separator: ":").compactMap { Int($0) }
                #expect(parts[1] == next[parts[0]], "task \(parts[0]) out of order")
                next[parts[0]] += 1
            }
            #expect(next == [Int](repeating: perTask, count: tasks))
            probe.transport.close()
            _ = await probe.ended()
        }
    }

    @Test func sequentialSendsAreOrdered() async throws {
        let peer = try await PythonPeer.start(script: "ws_aiohttp.py")
        try await withDeadline(30) {
            let probe = TransportProbe(peer.url("/echo"))
            let transport = probe.transport
            // Sent before the handshake completes: they wait for it, in order.
            let sender = Task {
                for i in 0..<200 { try await transport.send(.text("\(i)")) }
            }
            #expect(await probe.opened() != nil)
            try await sender.value
            for i in 0..<200 {
                #expect(await probe.message()?.text == "\(i)")
            }
            transport.close()
            _ = await probe.ended()
        }
    }

}

@Suite(.timeLimit(.minutes(1))) struct WebSocketTransportLifetimeTests {
    @Test func droppingAnOpenTransportEndsItsEvents() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline {
            var transport: WebSocketTransport? = WebSocketTransport(
                request: TransportRequest(url: peer.url("/echo")), options: TransportProbe.quietOptions)
            let events = transport!.eventStream()
            var iterator = events.makeAsyncIterator()
            guard case .opened? = await iterator.next() else {
                Issue.record("expected opened")
                return
            }
            transport = nil
            var ended: TransportEnd?
            while let event = await iterator.next() {
                if case .ended(let e) = event { ended = e }
            }
            #expect(ended?.error?.code == .cancelled)
        }
    }
}
