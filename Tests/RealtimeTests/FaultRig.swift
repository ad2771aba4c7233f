#if os(Linux)
import Foundation
@_spi(Transport) import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket

/// The scaffolding every fault test shares: two network namespaces joined by a veth
/// pair, a client event loop whose thread entered the client namespace, the scripts/netns
/// servers in the server namespace, a client of either transport, and the iptables/tc knobs.
///
/// ``run(_:_:_:)`` builds it, runs the test body and tears everything down (servers killed,
/// loop stopped, namespaces deleted) however the body ends. Without root it prints why and
/// returns without running the body (the suite skips visibly).
final class FaultRig {
    /// The transport under test; the fault tests run once per case.
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sse, webSocket
        var testDescription: String { rawValue }
        /// Keeps namespace names unique per transport.
        var tagSuffix: String { self == .sse ? "s" : "w" }
        var server: String { self == .sse ? "sse_server.py" : "ws_server.py" }
    }

    let ns: NetnsPair
    let loop: EventLoop
    let kind: Kind
    /// Every server started, so teardown kills them all.
    private var servers: [SpawnedProcess] = []

    static let port = 8080

    private init(ns: NetnsPair, loop: EventLoop, kind: Kind) {
        self.ns = ns
        self.loop = loop
        self.kind = kind
    }

    /// Runs `body` on a fresh rig tagged `tag` (at most 2 characters: interface names are
    /// short) for `kind`; always cleans up (servers, loop, namespaces), then rethrows. Every
    /// `ip`/process wait runs on a thread of its own, never on the cooperative pool.
    static func run(_ tag: String, _ kind: Kind, _ body: (FaultRig) async throws -> Void) async throws {
        guard let ns = await NetnsPair.make(tag: tag + kind.tagSuffix) else { return }
        var outcome: Result<Void, any Error> = .success(())
        if let loop = await ns.makeClientLoop() {
            let rig = FaultRig(ns: ns, loop: loop, kind: kind)
            do { try await body(rig) } catch { outcome = .failure(error) }
            await rig.killServers()
            _ = try? await offloaded { loop.shutdown() }  // joins the loop thread
        } else {
            Issue.record("could not enter the client namespace \(ns.client)")
        }
        await ns.destroyed()
        try outcome.get()
    }

    // MARK: Servers

    /// Starts this transport's streaming server (scripts/netns/sse_server.py or ws_server.py)
    /// on ``port`` and returns once it listens: messages 1...`count`, one every
    /// `intervalMilliseconds`, resuming after the client's cursor. `options`: `--pad N`,
    /// `--drip-ms N`, `--rst` (see scripts/netns/stream_common.py).
    @discardableResult
    func startServer(count: Int, intervalMilliseconds: Int, _ options: [String] = []) async throws -> SpawnedProcess {
        let script = NetnsPair.scripts.appendingPathComponent(kind.server).path
        let p = try await ns.spawnReady(
            in: ns.server,
            ["python3", script, NetnsPair.serverAddress, "\(Self.port)", "\(count)", "\(intervalMilliseconds)"] + options)
        servers.append(p)
        return p
    }

    /// Starts scripts/netns/silent_server.py: connections complete, nothing is ever answered.
    func startSilentServer() async throws {
        let script = NetnsPair.scripts.appendingPathComponent("silent_server.py").path
        servers.append(try await ns.spawnReady(in: ns.server, ["python3", script, NetnsPair.serverAddress, "\(Self.port)"]))
    }

    /// SIGKILLs every server started so far (their sockets close: FIN, or RST with `--rst`).
    func killServers() async {
        let running = servers
        servers.removeAll()
        await NetnsPair.killed(running)
    }

    // MARK: Network faults

    /// `ip netns exec <server namespace> args…`, on a thread of its own.
    func inServerNamespace(_ args: String...) async throws {
        try await ns.exec(in: ns.server, args)
    }

    /// `ip -n <client namespace> link set <client veth> up|down`.
    func setClientLink(up: Bool) async throws {
        try await ns.ip(ns.client, "link", "set", ns.clientVeth, up ? "up" : "down")
    }

    /// Drops every packet to and from the server port in the server namespace (a half-open
    /// connection: no FIN, no RST), or removes that rule again.
    func dropServerTraffic(_ drop: Bool) async throws {
        for (chain, port) in [("INPUT", "--dport"), ("OUTPUT", "--sport")] {
            try await inServerNamespace("iptables", drop ? "-A" : "-D", chain, "-p", "tcp", port, "\(Self.port)", "-j", "DROP")
        }
    }

    // MARK: Client

    var url: URL {
        switch kind {
        case .sse: URL(string: "http://\(NetnsPair.serverAddress):\(Self.port)/sse")!
        case .webSocket: URL(string: "ws://\(NetnsPair.serverAddress):\(Self.port)/ws")!
        }
    }

    /// A client for this rig's server (or `url`), with the library's default transports and
    /// network monitor, both on the client-namespace loop (`eventLoop`: the default monitor is
    /// that loop's, so it watches the client namespace's interfaces). Defaults: backoff
    /// 100 ms…500 ms, connect timeout 2 s, idle timeout 5 s, WebSocket heartbeat off (the
    /// tests that want one set it), WebSocket resume by `"<id>|…"` framing; then `configure`.
    /// With `clock`, the client's own timers (backoff) run on it: the transports' timers and
    /// the kernel keep real time, and the test moves the backoff when it chooses.
    func makeClient(
        url: URL? = nil, clock: ManualClock? = nil, _ configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> RealtimeClient {
        var c = RealtimeClient.Configuration()
        c.eventLoop = loop
        c.backoff = .exponential(initial: .milliseconds(100), maximum: .milliseconds(500))
        c.connectTimeout = .seconds(2)
        c.idleTimeout = .seconds(5)
        c.heartbeat = .disabled
        c.resumeWithIDPipeFraming()
        configure(&c)
        guard let clock else { return try RealtimeClient(url: url ?? self.url, configuration: c) }
        return try RealtimeClient(
            url: url ?? self.url, configuration: c, clock: clock, random: SystemRandomNumberGenerator(),
            transportFactory: RealtimeClient.defaultTransportFactory(configuration: c))
    }
}
#endif
