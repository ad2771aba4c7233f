#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The Fan-In article's shape on the embedded stack: several clients on one network, each with
/// its own `consume` loop in one task group, calling one actor.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedFanInTests {
    struct HandlerFailed: Error {}

    /// The one handler: records what each feed delivered, and throws for a marked message.
    actor Aggregator {
        private(set) var handled: [Int: [String]] = [:]
        func handle(_ message: Message, feed: Int) throws {
            if message.text == "boom" { throw HandlerFailed() }
            handled[feed, default: []].append(message.text ?? "")
        }
    }

    /// Three clients' servers, by feed, once each client made its first connection.
    static func servers(_ network: EmbeddedNetwork, count: Int) async throws -> [Int: EmbeddedSSEServer] {
        var servers: [Int: EmbeddedSSEServer] = [:]
        for index in 0..<count {
            await network.waitForTransport(index)
            let server = try #require(network.sseServer(index))
            let feed = try #require(Int(server.request.url.lastPathComponent))
            servers[feed] = server
        }
        return servers
    }

    /// A client that gives up ends its own `consume` and the others go on; a handler that
    /// throws ends the group with its error, and the group's cancellation closes every other
    /// client, each cursor covering exactly what the actor handled.
    @Test func aGivenUpClientEndsAloneAndAThrowingHandlerEndsThemAll() async throws {
        let network = EmbeddedNetwork()
        defer { network.shutdown() }
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(jitter: .none)
        let clients = try (0..<3).map { feed in
            try network.client(url: URL(string: "http://feeds.test/markets/\(feed)")!, configuration: configuration)
        }
        let aggregator = Aggregator()
        let ended = Observed<[Int]>([])
        let group = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (feed, client) in clients.enumerated() {
                    group.addTask {
                        defer { ended.update { $0.append(feed) } }
                        try await client.consume { event in
                            guard case .event(let message) = event else { return }
                            try await aggregator.handle(message, feed: feed)
                        }
                    }
                }
                for try await _ in group {}
            }
        }
        let servers = try await Self.servers(network, count: 3)
        EmbeddedClientPolicyTests.answer(try #require(servers[0]), 404)
        await ended.wait("feed 0 to give up") { $0 == [0] }
        for feed in [1, 2] {
            let server = try #require(servers[feed])
            server.respond()
            server.event("a\(feed)", id: "\(feed)-1")
        }
        await network.waitForState(of: clients[1]) { if case .open = $0 { true } else { false } }
        await network.waitForState(of: clients[2]) { if case .open = $0 { true } else { false } }
        #expect(ended.value == [0], "the others go on")
        servers[2]?.event("boom", id: "2-2")
        await #expect(throws: HandlerFailed.self) { try await network.runningLoop { await group.result }.get() }
        #expect(Set(ended.value) == [0, 1, 2])
        #expect(clients[1].state == .closed(.cancelled) && clients[2].state == .closed(.cancelled))
        #expect(await aggregator.handled == [1: ["a1"], 2: ["a2"]])
        #expect(clients[1].lastEventID == "1-1" && clients[2].lastEventID == "2-1", "the thrown event is not processed")
        network.loop.run()
        #expect(servers[1]?.ended == true && servers[2]?.ended == true)
    }

    /// A handler slower than the feeds: every client's buffer fills and its transfer is
    /// paused (memory stays within the buffers), and once the handler goes on every event
    /// arrives once, in order, each cursor covering what the handler took.
    @Test func aStalledHandlerPausesEveryClientAndLosesNothing() async throws {
        let network = EmbeddedNetwork()
        defer { network.shutdown() }
        var configuration = RealtimeClient.Configuration()
        configuration.eventBufferCapacity = 4
        let clients = try (0..<3).map { feed in
            try network.client(url: URL(string: "http://feeds.test/markets/\(feed)")!, configuration: configuration)
        }
        let released = Observed(false)
        let handled = Observed<[Int: [String]]>([:])
        let group = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (feed, client) in clients.enumerated() {
                    group.addTask {
                        try await client.consume { event, context in
                            guard case .event(let message) = event else { return }
                            await released.wait("the handler to go on") { $0 }
                            handled.update { $0[feed, default: []].append(message.text ?? "") }
                            if message.text == "19" { context.stop() }
                        }
                    }
                }
                for try await _ in group {}
            }
        }
        let servers = try await Self.servers(network, count: 3)
        for server in servers.values {
            server.respond()
            var sent = 0
            while !server.paused, sent < 20 {
                server.event("\(sent)", id: "\(sent)")
                sent += 1
            }
            #expect(server.paused && sent <= 7, "paused once the buffer is full (\(sent) sent)")
            for n in sent..<20 { server.event("\(n)", id: "\(n)") }  // held by the server
        }
        #expect(clients.allSatisfy { $0.lastEventID == nil }, "nothing handled yet")
        released.update { $0 = true }
        // Each run of the loop may carry a client's unpause: the servers then offer what
        // they held, as libcurl does once a transfer is unpaused.
        let held = Array(servers.values)
        try await network.runningLoop(afterEachRun: { for server in held { server.pump() } }) { await group.result }.get()
        let expected = (0..<20).map(String.init)
        #expect(handled.value == [0: expected, 1: expected, 2: expected])
        #expect(clients.allSatisfy { $0.lastEventID == "19" })
    }
}
#endif
