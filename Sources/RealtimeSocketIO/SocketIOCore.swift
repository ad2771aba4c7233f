@_spi(Transport) import Realtime
import Synchronization
import RealtimeCore

/// What a ``SocketIOClient`` shares with its reader, its connection hook, its `messageID`
/// and the Engine.IO layer of each attempt: one lock over ``State``.
final class SocketIOCore: Sendable {
    typealias AckWaiter = CheckedContinuation<SocketIOArguments, any Error>

    /// A namespace's session: what the last CONNECT answer said, and the last recovery offset
    /// received on it (what the reader handed on, so what the application gets next).
    struct Session: Sendable {
        var sid: String?
        var pid: String?
        var offset: String?
    }

    struct State {
        var acks = SocketIOAckTable<AckWaiter>()
        var sessions: [String: Session] = [:]
        /// The open packet of the current attempt.
        var open: EngineIOOpenPacket?
        /// The Engine.IO layer of the current attempt.
        var link: EngineIOTransport?
        /// The handshake's result, by attempt, until the reader announces it.
        var connections: [Int: SocketIOConnection] = [:]
        /// A refusal that stops the client (CONNECT_ERROR).
        var fatal: SocketIOError?
        var unmatchedAcks = 0
        var stopped = false
        /// Whether any namespace's session has a `pid` (only then do events carry offsets).
        var recovering: Bool { sessions.values.contains { $0.pid != nil } }
    }

    struct WeakClient {
        weak var client: RealtimeClient?
    }

    let configuration: SocketIOClient.Configuration
    let state = LockedValue(State())
    let inbox: AsyncBoundedQueue<SocketIOEvent, Never>
    let gate = SocketIOSendGate()
    /// The client's clock: heartbeat deadlines and acknowledgement timeouts are its timers.
    let clock: ClientClock
    let realtime = LockedValue(WeakClient())

    init(configuration: SocketIOClient.Configuration, clock: ClientClock) {
        self.configuration = configuration
        self.clock = clock
        inbox = AsyncBoundedQueue(capacity: max(1, configuration.eventBufferCapacity))
    }

    /// Wraps each attempt's transport in the Engine.IO layer.
    func transportFactory(_ inner: @escaping RealtimeClient.TransportFactory) -> RealtimeClient.TransportFactory {
        { [weak self] request in
            let transport = try inner(request)
            guard let self else { return transport }
            let link = EngineIOTransport(
                inner: transport, maxAttachments: self.configuration.maxAttachments, clock: self.clock,
                onOpenPacket: { [weak self] open in self?.state.withLock { $0.open = open } })
            self.state.withLock { s in
                s.link = link
                s.open = nil
            }
            return link
        }
    }

    /// The recovery offset of a message, for the client's resume cursor: the last argument of
    /// an event on a namespace whose session has a `pid`. Runs on the I/O thread: one decode
    /// of the packet's header and array, no more.
    func offset(of message: Message) -> String? {
        guard let text = message.text, text.hasPrefix("42") || text.hasPrefix("45"), state.withLock({ $0.recovering }) else {
            return nil
        }
        guard let packet = try? SocketIOPacket.decode(Array(text.utf8), from: 1, maxAttachments: configuration.maxAttachments),
            state.withLock({ $0.sessions[packet.namespace]?.pid != nil })
        else { return nil }
        return SocketIOArguments(payload: packet.payload, dropFirst: true, attachments: []).trailingString
    }

    /// Fails every waiting acknowledgement and ends the events (the client stopped).
    func stop(_ error: SocketIOError) {
        let waiters = state.withLock { s in
            s.stopped = true
            return s.acks.takeAll()
        }
        for w in waiters { w.resume(throwing: error) }
        inbox.finish()
    }
}
