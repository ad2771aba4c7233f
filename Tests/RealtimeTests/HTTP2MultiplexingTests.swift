#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Synchronization
import RealtimeCore
import Testing

/// Many clients of one process to one origin over HTTP/2 share connections, and each stream
/// keeps its own lifecycle: against sse-starlette under Hypercorn and the `h2` library's
/// server (`Tests/Peers/h2_sse.py`), both over TLS with ALPN `h2`, whose `/connection` stream
/// tells each client the address and port the server saw, so the number of distinct ports is
/// the number of TCP connections.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct HTTP2MultiplexingTests {
    static let certificates: Result<TestCertificates, any Error> = Result { try TestCertificates.shared() }

    /// Lets every client hold its stream open until all of them have theirs.
    actor Gate {
        private var waiters: [CheckedContinuation<Void, Never>] = []
        private var isOpen = false

        func wait() async {
            if isOpen { return }
            await withCheckedContinuation { waiters.append($0) }
        }

        func open() {
            isOpen = true
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    /// Starts `count` clients on `path` together; once every one has its first event (all
    /// streams open at once), returns the addresses the server saw and the HTTP versions
    /// the clients negotiated.
    private func streams(
        _ peer: PythonPeer, count: Int, scheme: String, path: String = "/connection",
        _ configure: @escaping @Sendable (inout RealtimeClient.Configuration) -> Void
    ) async throws -> (addresses: [String], versions: Set<String>) {
        let gate = Gate()
        let (reports, reporter) = AsyncStream<(String, String)>.makeStream()
        var pending = reports.makeAsyncIterator()
        let url = peer.url(scheme: scheme, path: path)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            var addresses: [String] = []
            var versions: Set<String> = []
            for _ in 0..<count {
                var c = RealtimeClient.Configuration()
                c.reconnect = .never
                c.connectTimeout = .seconds(20)
                configure(&c)
                let client = try RealtimeClient(url: url, configuration: c)
                group.addTask {
                    var version = ""
                    for await event in client.events {
                        if case .open(let info) = event { version = info.httpVersion ?? "" }
                        guard case .event(let message) = event else {
                            if case .error = event { reporter.yield(("failed: \(event)", version)) }
                            continue
                        }
                        reporter.yield((message.text ?? "", version))
                        await gate.wait()
                        break
                    }
                }
            }
            while addresses.count < count, let (address, version) = await pending.next() {
                addresses.append(address)
                versions.insert(version)
            }
            await gate.open()
            try await group.waitForAll()
            return (addresses, versions)
        }
    }

    private static func hypercorn() async throws -> PythonPeer {
        let certificates = try certificates.get()
        return try await PythonPeer.start(script: "sse_starlette_app.py", arguments: [
            "--server", "hypercorn", "--tls-cert", certificates.serverCertificateFile, "--tls-key", certificates.serverKeyFile,
        ])
    }

    private static let trust: @Sendable (inout RealtimeClient.Configuration) -> Void = { c in
        if let certificates = try? certificates.get() { c.tls.trustRoots = .file(certificates.caCertificateFile) }
    }

    /// 40 streams started together share one TLS connection.
    @Test func streamsStartedTogetherShareOneConnection() async throws {
        let peer = try await Self.hypercorn()
        defer { peer.terminate() }
        let (addresses, versions) = try await streams(peer, count: 40, scheme: "https", Self.trust)
        #expect(addresses.allSatisfy { !$0.hasPrefix("failed") }, "\(addresses.filter { $0.hasPrefix("failed") })")
        #expect(versions == ["2"], "\(addresses.filter { $0.hasPrefix("failed") })")
        #expect(Set(addresses).count == 1, "connections: \(Set(addresses))")
    }

    /// With the server allowing 10 streams per connection and 25 started together, every
    /// stream opens, no connection carries more than the server's 10, and the streams pack
    /// onto few connections.
    @Test func streamsBeyondTheServersLimitStillOpen() async throws {
        let peer = try await Self.h2(maxStreams: 10)
        defer { peer.terminate() }
        let (addresses, versions) = try await streams(peer, count: 25, scheme: "https", Self.trust)
        #expect(addresses.allSatisfy { !$0.hasPrefix("failed") }, "\(addresses.filter { $0.hasPrefix("failed") })")
        #expect(versions == ["2"])
        let perConnection = Dictionary(grouping: addresses, by: { $0 }).values.map(\.count)
        #expect(perConnection.max() == 10, "streams per connection: \(perConnection.sorted())")
        // Three connections would do. The streams start in waves of 1, 1, 2, 4, 8 until the
        // limit is learned (each once the last has its heads), and libcurl gives each stream
        // that finds the open connections full a connection of its own: at most the last wave
        // of 8 does, so 9 connections at most (16 when all 25 start at once: one for each of
        // the 15 beyond 10).
        #expect(perConnection.count <= 9, "streams per connection: \(perConnection.sorted())")
    }

    private static func h2(maxStreams: Int = 100) async throws -> PythonPeer {
        let certificates = try certificates.get()
        return try await PythonPeer.start(script: "h2_sse.py", arguments: [
            "--max-streams", "\(maxStreams)", "--tls-cert", certificates.serverCertificateFile,
            "--tls-key", certificates.serverKeyFile,
        ])
    }

    /// Each client's events until it ends (ids of the messages, and the errors it saw).
    private func run(_ clients: [RealtimeClient]) async -> [(ids: [String], errors: [ErrorEvent])] {
        await withTaskGroup(of: (Int, [String], [ErrorEvent]).self) { group in
            for (n, client) in clients.enumerated() {
                group.addTask {
                    var ids: [String] = []
                    var errors: [ErrorEvent] = []
                    for await event in client.events {
                        if case .event(let message) = event { ids.append(message.id ?? "") }
                        if case .error(let error) = event { errors.append(error) }
                    }
                    return (n, ids, errors)
                }
            }
            var results = Array(repeating: (ids: [String](), errors: [ErrorEvent]()), count: clients.count)
            for await (n, ids, errors) in group { results[n] = (ids, errors) }
            return results
        }
    }

    private func client(_ peer: PythonPeer, _ path: String) throws -> RealtimeClient {
        var c = RealtimeClient.Configuration()
        c.reconnect = .finite
        c.backoff = .immediate
        c.connectTimeout = .seconds(20)
        Self.trust(&c)
        return try RealtimeClient(url: peer.url(scheme: "https", path: path), configuration: c)
    }

    /// A RST_STREAM ends one stream: that client reconnects and resumes after its last id;
    /// the streams beside it on the same connection go on without an error.
    @Test func aResetStreamFailsOnlyItsClient() async throws {
        let peer = try await Self.h2()
        defer { peer.terminate() }
        let clients = try (0..<4).map { _ in try client(peer, "/events?count=20&interval=0.02") }
            + [try client(peer, "/events?count=20&interval=0.02&reset=3")]
        let results = await run(clients)
        let all = (1...20).map(String.init)
        for (n, result) in results.enumerated() {
            #expect(result.ids == all, "client \(n)")
        }
        for result in results.dropLast() { #expect(result.errors.isEmpty, "\(result.errors)") }
        #expect(results.last?.errors.count == 1, "\(results.last?.errors ?? [])")
        #expect(results.last?.errors.first?.willRetry == true)
    }

    /// A GOAWAY and the end of the connection cut every stream on it: each client
    /// reconnects with its own cursor and loses or repeats nothing.
    @Test func aGoAwayReconnectsEveryStreamFromItsOwnCursor() async throws {
        let peer = try await Self.h2()
        defer { peer.terminate() }
        let clients = try (0..<4).map { _ in try client(peer, "/events?count=10&interval=0.05") }
            + [try client(peer, "/events?count=10&interval=0.05&goaway=3")]
        let results = await run(clients)
        let all = (1...10).map(String.init)
        for (n, result) in results.enumerated() {
            #expect(result.ids == all, "client \(n)")
            #expect(result.errors.allSatisfy { $0.willRetry }, "\(result.errors)")
        }
        #expect(results.last?.errors.count == 1, "\(results.map(\.errors))")
    }

    /// A consumer that stops reading pauses its own stream only: HTTP/2 flow control holds
    /// the server's writes to that stream (500 KB against a 64 KB window), while a stream
    /// beside it on the same connection is delivered whole; released, the slow one gets
    /// every event in order.
    @Test func aSlowConsumerDoesNotStallItsSiblings() async throws {
        let peer = try await Self.h2()
        defer { peer.terminate() }
        let gate = Gate()
        var slowConfiguration = RealtimeClient.Configuration()
        slowConfiguration.reconnect = .finite
        slowConfiguration.eventBufferCapacity = 4
        Self.trust(&slowConfiguration)
        let slow = try RealtimeClient(url: peer.url(scheme: "https", path: "/events?count=500&interval=0&pad=1000"), configuration: slowConfiguration)
        let slowTask = Task {
            var ids: [String] = []
            for await event in slow.events {
                guard case .event(let message) = event else { continue }
                if ids.isEmpty { await gate.wait() }
                ids.append(message.id ?? "")
            }
            return ids
        }
        // The fast stream starts once the slow one is open, on its connection.
        try await slow.waitUntilOpen(timeout: .seconds(20))
        var ids: [String] = []
        let fast = try client(peer, "/events?count=50&interval=0.01")
        for await event in fast.events {
            if case .event(let message) = event { ids.append(message.id ?? "") }
        }
        #expect(ids == (1...50).map(String.init))
        await gate.open()
        #expect(await slowTask.value == (1...500).map(String.init))
    }

    /// A stream waits its turn only so long: a server slow to answer the first request (its
    /// head comes after 8 s) does not hold the next request to the origin until then.
    @Test func aSlowAnswerDoesNotHoldTheNextStream() async throws {
        let peer = try await Self.h2()
        defer { peer.terminate() }
        let order = Order()
        let slow = try client(peer, "/slow?delay=8")
        let slowTask = Task {
            for await event in slow.events { if case .open = event { order.append("slow") } }
        }
        // The slow request goes first: the next one is started once the slow one connects.
        for await state in slow.stateChanges where state == .connecting(attempt: 1) { break }
        let next = try client(peer, "/events?count=1&interval=0")
        for await event in next.events { if case .open = event { order.append("next") } }
        await slowTask.value
        #expect(order.all == ["next", "slow"])
    }

    final class Order: Sendable {
        private let names = LockedValue<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }
}
#endif
