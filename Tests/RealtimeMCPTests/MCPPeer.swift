import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RealtimeMCP
import RealtimeTestSupport
import Synchronization
import RealtimeCore
import Testing

/// The MCP peers of `Tests/Peers/` (`mcp_server.py`: the Python `mcp` SDK's server;
/// `mcp_hostile.py`: our misbehaving one), with their POST counters.
struct MCPPeer {
    let peer: PythonPeer

    static func sdk(_ arguments: [String] = []) async throws -> MCPPeer {
        // Importing the SDK takes seconds on a loaded machine.
        MCPPeer(peer: try await PythonPeer.start(script: "mcp_server.py", arguments: arguments, timeout: .seconds(120)))
    }

    static func hostile() async throws -> MCPPeer {
        MCPPeer(peer: try await PythonPeer.start(script: "mcp_hostile.py", timeout: .seconds(60)))
    }

    func url(_ path: String = "/mcp") -> URL { peer.url(scheme: "http", path: path) }

    /// How often each JSON-RPC message was POSTed (`"method id"` keys).
    func postCounts(_ path: String = "/posts") async throws -> [String: Int] {
        let data = try await LoopbackHTTP.get(url(path))
        return try JSONDecoder().decode([String: Int].self, from: data)
    }

    /// A JSON record of the hostile peer (`/<case>/gets`, `/<case>/answers`, `/<case>/deletes`).
    func record(_ path: String) async throws -> JSONValue {
        let data = try await LoopbackHTTP.get(url(path))
        return try JSONValue(json: data)
    }

    /// The progress values the peer's event store replayed to resumed streams, in order.
    func replayedProgress() async throws -> [Double] {
        let data = try await LoopbackHTTP.get(url("/replays"))
        return try JSONDecoder().decode([Double].self, from: data)
    }

    /// Fails the test when a message was POSTed more than once.
    func expectNoRepeatedPOST(_ path: String = "/posts", sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let counts = try await postCounts(path)
        #expect(!counts.isEmpty, sourceLocation: sourceLocation)
        for (key, count) in counts where !key.hasPrefix("notifications/") && !key.contains("notifications/") {
            #expect(count == 1, "\(key) was POSTed \(count) times", sourceLocation: sourceLocation)
        }
    }

    func stop() async { await peer.stop() }
}

/// Collects progress notifications from the I/O side.
final class ProgressLog: Sendable {
    private let values = LockedValue<[Double]>([])
    func append(_ p: MCPProgress) { values.withLock { $0.append(p.progress) } }
    var all: [Double] { values.withLock { $0 } }
}


/// Counts calls from any thread.
final class Counter: Sendable {
    private let count = LockedValue(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
