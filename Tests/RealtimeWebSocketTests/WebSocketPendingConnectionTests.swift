import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeIO
@_spi(Transport) @testable import RealtimeWebSocket
import RealtimeTestSupport

/// RFC 6455 §4.1 against a loopback server that counts the connections it accepted and has
/// not answered yet: clients started together open one at a time per address (or as many
/// as their options allow), every one of them opens, and a handshake that never comes back
/// holds the line only until its connect timeout.
@Suite(.timeLimit(.minutes(1))) struct WebSocketPendingConnectionTests {
    static func options(limit: Int?) -> WebSocketOptions {
        var options = TransportProbe.quietOptions
        options.maxConnectingPerAddress = limit
        return options
    }

    @Test(arguments: [1, 3])
    func clientsStartedTogetherOpenWithinTheLimitAndAllOpen(limit: Int) async throws {
        let server = try HandshakeCountingServer()
        defer { server.stop() }
        try await withDeadline(30) {
            let probes = (0..<12).map { _ in TransportProbe(server.url, options: Self.options(limit: limit)) }
            for probe in probes { #expect(await probe.opened() != nil) }
            #expect(server.answered == 12)
            #expect(server.peakUnanswered <= limit, "at most \(limit) opening at once to one address")
            for probe in probes { probe.transport.close() }
        }
    }

    /// The one behind a stalled handshake waits longer than its own connect timeout (1 s
    /// against the stalled one's 2 s) and still opens: its timeout runs from its turn.
    @Test func aHandshakeThatNeverComesBackHoldsTheLineOnlyUntilItsTimeout() async throws {
        let server = try HandshakeCountingServer(silentConnections: 1)
        defer { server.stop() }
        try await withDeadline(30) {
            let stalled = TransportProbe(server.url, options: Self.options(limit: 1)) { $0.connectTimeout = .seconds(2) }
            var requests = server.requests.makeAsyncIterator()
            _ = await requests.next()  // the stalled one holds its place
            let next = TransportProbe(server.url, options: Self.options(limit: 1)) { $0.connectTimeout = .seconds(1) }
            let (end, _) = await stalled.ended()
            #expect(end?.error?.code == .connectTimeout)
            #expect(await next.opened() != nil, "admitted only then, with its whole timeout")
            #expect(server.peakUnanswered == 1)
            next.transport.close()
        }
    }
}

/// A loopback WebSocket server that accepts every connection at once on a thread of its
/// own, answers each opening handshake with a correct 101 (after counting it as answered, so
/// a client that waits for the 101 before it connects again is never seen twice), except
/// the first `silentConnections`, which it never answers; it keeps every socket open until
/// ``stop()``.
final class HandshakeCountingServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let state = LockedValue(State())
    private let silentConnections: Int

    private struct State {
        var accepted = 0, unanswered = 0, peak = 0, answered = 0
        /// The silent connections their clients have not closed yet.
        var silent: [Int32] = []
        var sockets: [Int32] = []
        var stopped = false
    }

    var url: URL { URL(string: "ws://127.0.0.1:\(port)/")! }
    var answered: Int { state.withLock { $0.answered } }
    /// The most connections accepted and not answered at one moment.
    var peakUnanswered: Int { state.withLock { $0.peak } }

    init(silentConnections: Int = 0) throws {
        self.silentConnections = silentConnections
        (requests, requestArrived) = AsyncStream.makeStream()
        (listener, port) = ScriptedServer.listen(backlog: 128)
        Thread { [self] in acceptLoop() }.start()
    }

    /// One element per opening handshake read whole, in arrival order.
    let requests: AsyncStream<Void>
    private let requestArrived: AsyncStream<Void>.Continuation

    func stop() {
        let sockets = state.withLock { s in
            s.stopped = true
            return s.sockets
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for s in sockets { shutdown(s, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let index: Int? = state.withLock { s in
                guard !s.stopped else { return nil }
                s.accepted += 1
                // A silent connection counts until its client closed it (its FIN or RST went
                // ahead of any later connection's SYN on loopback).
                s.silent = s.silent.filter { !Self.closedByPeer($0) }
                s.peak = max(s.peak, s.unanswered + s.silent.count + 1)
                if s.accepted <= silentConnections { s.silent.append(client) } else { s.unanswered += 1 }
                s.sockets.append(client)
                return s.accepted
            }
            guard let index else {
                close(client)
                return
            }
            Thread { [self] in answer(client, silent: index <= silentConnections) }.start()
        }
    }

    private static func closedByPeer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if n == 0 { return true }
        return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK
    }

    private func answer(_ client: Int32, silent: Bool) {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard read(client, &byte, 1) == 1 else { return }
            head.append(byte)
        }
        requestArrived.yield()
        guard !silent else { return }
        let text = String(decoding: head, as: UTF8.self)
        let key = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? ""
        let accept = WebSocketHandshake.acceptValue(forKey: key, sha1: OpenSSLSHA1.digest)
        let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
        state.withLock { s in
            s.unanswered -= 1
            s.answered += 1
        }
        _ = response.withCString { write(client, $0, strlen($0)) }
    }
}
