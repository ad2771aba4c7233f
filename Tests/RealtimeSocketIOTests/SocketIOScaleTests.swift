#if os(Linux)
import Foundation
import Realtime
import RealtimeSocketIO
import RealtimeTestSupport
import Testing

/// 500 `SocketIOClient`s in one process against one python-socketio server: each joins the
/// room in its re-join hook, one of them emits 3 lines, and every client gets every line
/// once. It runs in a child test process of its own (`ChildTestProcess`): its descriptors
/// and tasks are not the other tests'. The wait is bounded by the suite's limit only; the
/// time it took and the peak resident memory are printed, not asserted.
@Suite("Socket.IO: 500 clients in one process", .timeLimit(.minutes(6)), .serialized)
struct SocketIOScaleTests {
    static let childVariable = "RT_SOCKETIO_SCALE_CHILD"
    static let clients = 500
    static let lines = 3

    @Test("500 clients join a room and each receives every broadcast once")
    func fiveHundredClients() async throws {
        if ChildTestProcess.isChild(Self.childVariable, lowPriority: false) {
            try await scale()
            return
        }
        let (status, lines) = try await ChildTestProcess.relay(
            filter: "SocketIOScaleTests", variable: Self.childVariable, timeoutSeconds: 300, prefix: "SocketIO scale")
        if lines.contains(where: { $0.contains("SKIPPED (socketio scale)") }) { return }
        #expect(status == 0, "the child process failed (exit \(status))")
        #expect(lines.contains { $0.hasPrefix("SocketIO scale:") }, "the child ran and reported its numbers")
    }

    func scale() async throws {
        guard ProcessResources.ensureDescriptorLimit(2 * Self.clients + 512, label: "socketio scale") else { return }
        let peer = try await PythonPeer.start(script: "socketio_server.py")
        defer { peer.terminate() }
        var configuration = SocketIOClient.Configuration()
        configuration.client.networkMonitor = nil
        configuration.client.onOpenTimeout = .seconds(60)
        configuration.onConnect = { handshake in try await handshake.emitWithAck("join", "lobby") }
        let sockets = try (0..<Self.clients).map { _ in try SocketIOClient(url: peer.url(scheme: "ws"), configuration: configuration) }
        let wall = ContinuousClock()
        let start = wall.now
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for socket in sockets {
                group.addTask { await Self.countLines(socket) }
            }
            for socket in sockets { _ = try await socket.realtime.waitUntilOpen(timeout: .seconds(240)) }
            let joined = wall.now - start
            for i in 1...Self.lines { try await sockets[0].emit("chat", "line \(i)") }
            var counts: [Int] = []
            for try await count in group { counts.append(count) }
            print("SocketIO scale: \(Self.clients) clients joined in \(joined), peak RSS \(ProcessResources.peakResidentBytes >> 20) MiB")
            return counts
        }
        #expect(counts.count == Self.clients)
        #expect(counts.allSatisfy { $0 == Self.lines }, "every client got every line once")
        print("SocketIO scale: \(counts.reduce(0, +)) of \(Self.clients * Self.lines) broadcasts received")
        for socket in sockets { socket.realtime.close() }
        await peer.stop()
    }

    /// The lines `socket` receives until it has all of them; any disconnection ends the count.
    static func countLines(_ socket: SocketIOClient) async -> Int {
        var seen: Set<String> = []
        var total = 0
        for await event in socket.events {
            switch event {
            case .event(let message) where message.name == "chat":
                total += 1
                seen.insert((try? message.arguments.decode(String.self)) ?? "")
                if seen.count == lines { return total }
            case .disconnected:
                return total
            default:
                break
            }
        }
        return total
    }
}
#endif
