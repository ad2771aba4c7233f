import Realtime

/// The Engine.IO v4 side of one WebSocket connection, as a pure state machine: it checks
/// every message the server sends, answers pings, keeps the heartbeat deadline, and says
/// which messages go on to the Socket.IO layer.
///
/// Rules (Engine.IO protocol v4; Socket.IO protocol v5 for the attachments):
/// - the first message is the `open` packet (`0{…}`); anything else first, or a second
///   `open`, is a protocol violation;
/// - `2` (ping) is answered `3` and not delivered; the connection is dead when no ping came
///   within `pingInterval + pingTimeout` of the open packet or of the last ping;
/// - `1` (close) ends the connection cleanly; `3`, `5` and `6` are consumed;
/// - `4…` carries a Socket.IO packet, checked here; a BINARY_EVENT or BINARY_ACK is followed
///   by exactly its number of binary messages (at most `maxAttachments`), before any text;
/// - a binary message at any other time, an unknown packet type or an empty message is a
///   protocol violation.
struct EngineIOLinkMachine: Sendable {
    enum Phase: Sendable, Hashable {
        case awaitingOpen
        /// Open; `generation` numbers the heartbeat deadline now armed.
        case open(generation: UInt64)
        /// Ended by this machine (a failure, the server's close); later input is ignored.
        case done
    }

    /// What the driver does with one message.
    enum ReceiveAction: Sendable, Hashable {
        /// Hand the message on to the client.
        case deliver
        /// Hand the open packet on, and arm the heartbeat deadline `after` from now.
        case deliverOpen(EngineIOOpenPacket, armAfter: Duration, generation: UInt64)
        /// Send `3`, arm the deadline again; the ping is not delivered.
        case pong(armAfter: Duration, generation: UInt64)
        /// Nothing to deliver.
        case consume
        /// Close the connection and end the attempt with `error` (nil: a clean end).
        case end(RealtimeError?)
        /// The machine already ended the connection: drop it.
        case drop
    }

    let maxAttachments: Int
    private(set) var phase = Phase.awaitingOpen
    private var silenceLimit: Duration = .zero
    /// Binary messages still owed to the last BINARY packet.
    private(set) var attachmentsOwed = 0

    init(maxAttachments: Int) {
        self.maxAttachments = maxAttachments
    }

    mutating func received(_ message: Message) -> ReceiveAction {
        guard phase != .done else { return .drop }
        guard case .text = message.content else { return receivedBinary() }
        let bytes = message.bytes
        guard attachmentsOwed == 0 else {
            return fail(.protocolViolation("Engine.IO text packet while \(attachmentsOwed) binary attachments are owed"))
        }
        guard let type = bytes.first else { return fail(.protocolViolation("empty Engine.IO packet")) }
        if case .awaitingOpen = phase, type != UInt8(ascii: "0") {
            return fail(.protocolViolation("the first Engine.IO packet is not open"))
        }
        switch type {
        case UInt8(ascii: "0"): return receivedOpen(bytes)
        case UInt8(ascii: "1"):
            phase = .done
            return .end(nil)
        case UInt8(ascii: "2"): return .pong(armAfter: silenceLimit, generation: rearm())
        case UInt8(ascii: "3"), UInt8(ascii: "5"), UInt8(ascii: "6"): return .consume
        case UInt8(ascii: "4"): return receivedSocketIO(bytes)
        default: return fail(.protocolViolation("Engine.IO packet of unknown type"))
        }
    }

    /// The heartbeat deadline of `generation` passed.
    mutating func deadlinePassed(generation: UInt64) -> ReceiveAction {
        guard case .open(let current) = phase, current == generation else { return .drop }
        return fail(RealtimeError(.heartbeatTimeout, detail: "no Engine.IO ping within pingInterval + pingTimeout", closeCode: 1001))
    }

    /// The driver ends the connection for a reason of its own (a Socket.IO violation).
    mutating func failed(_ error: RealtimeError) -> ReceiveAction {
        guard phase != .done else { return .drop }
        return fail(error)
    }

    private mutating func receivedOpen(_ bytes: [UInt8]) -> ReceiveAction {
        guard case .awaitingOpen = phase else { return fail(.protocolViolation("a second Engine.IO open packet")) }
        guard let open = EngineIOOpenPacket.decode(bytes) else { return fail(.protocolViolation("invalid Engine.IO open packet")) }
        silenceLimit = open.silenceLimit
        phase = .open(generation: 0)
        return .deliverOpen(open, armAfter: silenceLimit, generation: rearm())
    }

    private mutating func receivedSocketIO(_ bytes: [UInt8]) -> ReceiveAction {
        do {
            let packet = try SocketIOPacket.decode(bytes, from: 1, maxAttachments: maxAttachments)
            attachmentsOwed = packet.attachments
            return .deliver
        } catch {
            return fail(error)
        }
    }

    private mutating func receivedBinary() -> ReceiveAction {
        guard attachmentsOwed > 0 else { return fail(.protocolViolation("binary message without a BINARY packet before it")) }
        attachmentsOwed -= 1
        return .deliver
    }

    private mutating func rearm() -> UInt64 {
        guard case .open(let generation) = phase else { preconditionFailure("rearm before the open packet") }
        phase = .open(generation: generation + 1)
        return generation + 1
    }

    private mutating func fail(_ error: RealtimeError) -> ReceiveAction {
        phase = .done
        return .end(error)
    }
}
