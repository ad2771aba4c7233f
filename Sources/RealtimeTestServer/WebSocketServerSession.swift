import Dispatch
import RealtimeCore

/// One upgraded `/ws` connection: runs the mode and fault options on the connection's
/// thread, with the ``WebSocketReceiver`` codec in the server role (client frames must be
/// masked) and a ``WebSocketFrameEncoder`` that never masks.
///
/// Not thread-safe: it belongs to the connection's thread.
final class WebSocketServerSession {
    private let writer: ResponseWriter
    private let options: WebSocketEndpointOptions
    private let record: ((inout RecordedWebSocketSession) -> Void) -> Void
    private var receiver = WebSocketReceiver(role: .server, maxFrameSize: 64 << 20, maxMessageSize: 64 << 20)
    private var encoder = WebSocketFrameEncoder(role: .server)
    private var closeSent = false
    private var pingsSent = 0

    init(
        writer: ResponseWriter, options: WebSocketEndpointOptions,
        record: @escaping ((inout RecordedWebSocketSession) -> Void) -> Void
    ) {
        self.writer = writer
        self.options = options
        self.record = record
        writer.dripDelayMilliseconds = options.dripMilliseconds
        writer.cutAfterBodyBytes = options.cut
        writer.cutWithReset = options.reset
    }

    func run() throws {
        if options.stall { try writer.hold() }
        if options.noRead { try writer.holdWithoutReading() }
        if options.dropMidFrame {
            // A 100-byte text frame announced, 10 bytes of it sent, then the connection drops.
            try writer.writeRaw([0x81, 100] + Array("0123456789".utf8))
            writer.abort(reset: options.reset)
            return
        }
        if let violation = options.violation { try send(Self.frame(violating: violation)) }
        switch options.mode {
        case .echo:
            break
        case .send:
            for index in 1...max(1, options.count) where options.count > 0 {
                if index > 1 { try writer.sleep(milliseconds: options.intervalMilliseconds) }
                try sendMessage(index: index)
            }
            if let code = options.closeCode { try sendClose(code: code, reason: options.reason) }
        case .close:
            try sendClose(code: options.closeCode ?? WebSocketCloseCode.normal, reason: options.reason)
        }
        try receiveLoop()
    }

    /// `message K`, padded with `x` to `size` bytes, in one frame or `fragment`-byte fragments.
    private func sendMessage(index: Int) throws {
        var payload = Array("message \(index)".utf8)
        if let size = options.size, payload.count < size {
            payload += [UInt8](repeating: UInt8(ascii: "x"), count: size - payload.count)
        }
        let opcode: WebSocketOpcode = options.binary ? .binary : .text
        let step = options.fragment ?? max(1, payload.count)
        var frames: [UInt8] = []
        var offset = 0
        repeat {
            let end = min(payload.count, offset + step)
            encoder.encode(
                opcode: offset == 0 ? opcode : .continuation, payload: payload[offset..<end], fin: end == payload.count,
                into: &frames)
            offset = end
        } while offset < payload.count
        try send(frames)
    }

    private func send(_ frame: [UInt8]) throws {
        try writer.write(frame)
    }

    private func sendClose(code: UInt16?, reason: String) throws {
        closeSent = true
        try send(encoder.close(code: code, reason: reason))
    }

    private func now() -> Int { Int(DispatchTime.now().uptimeNanoseconds / 1_000_000) }

    private func receiveLoop() throws {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var nextPing = options.pingMilliseconds.map { now() + $0 }
        var nextHeartbeat = options.heartbeatMilliseconds.map { now() + $0 }
        var deadline = closeSent ? now() + options.closeTimeoutMilliseconds : nil
        while true {
            let wakeAt = [nextPing, nextHeartbeat, deadline].compactMap { $0 }.min()
            let timeout = wakeAt.map { max(0, $0 - now()) } ?? -1
            switch writer.connection.waitForInput(milliseconds: timeout) {
            case .stopped:
                writer.abort()
                return
            case .timeout:
                if let deadline, now() >= deadline {
                    // The client never answered our close: drop the connection (RFC 6455 §7.1.1).
                    writer.abort()
                    return
                }
                if let ping = nextPing, now() >= ping, !closeSent {
                    pingsSent += 1
                    try send(encoder.ping(Array("ping \(pingsSent)".utf8)))
                    record { $0.pingsSent += 1 }
                    nextPing = ping + (options.pingMilliseconds ?? 0)
                }
                if let heartbeat = nextHeartbeat, now() >= heartbeat, !closeSent {
                    try send(encoder.text(options.heartbeatText))
                    record { $0.heartbeatsSent += 1 }
                    nextHeartbeat = heartbeat + (options.heartbeatMilliseconds ?? 0)
                }
                continue
            case .ready:
                break
            }
            let n = try writer.read(into: &buffer)
            if n == 0 {
                // TCP closed without (or after) a close handshake.
                writer.abort()
                return
            }
            let finished: Bool
            do {
                finished = try handle(buffer, count: n)
            } catch let error as RealtimeError {
                let code = error.closeCode ?? WebSocketCloseCode.protocolError
                record { $0.protocolErrorCode = code }
                if !closeSent { try? sendClose(code: code, reason: "") }
                writer.abort()
                return
            }
            if finished {
                // The server closes TCP first after the close handshake (RFC 6455 §7.1.1).
                writer.abort()
                return
            }
            if closeSent, deadline == nil { deadline = now() + options.closeTimeoutMilliseconds }
        }
    }

    /// Feeds received bytes to the codec and reacts; true when the close handshake is done.
    private func handle(_ buffer: [UInt8], count: Int) throws -> Bool {
        var outputs: [WebSocketMessageAssembler.Output] = []
        try buffer.withUnsafeBytes { raw in
            var input = UnsafeRawBufferPointer(rebasing: raw[0..<count])
            while let output = try receiver.next(from: &input) { outputs.append(output) }
        }
        for output in outputs {
            switch output {
            case .string(let text):
                // Only a client's receiver makes these (a client's frames are masked).
                preconditionFailure("a server's receiver read \(text.utf8.count) bytes as a client")
            case .text(let bytes):
                record {
                    $0.messageCount += 1
                    if $0.textMessages.count < RecordedWebSocketSession.recordLimit {
                        $0.textMessages.append(String(decoding: bytes, as: UTF8.self))
                    }
                }
                if options.mode == .echo && !closeSent {
                    try writer.sleep(milliseconds: options.echoDelayMilliseconds)
                    if let replyTo = options.replyTo, bytes.elementsEqual(replyTo.utf8) {
                        try send(encoder.text(options.reply))
                    } else {
                        try send(encoder.encode(opcode: .text, payload: bytes))
                    }
                }
            case .binary(let bytes):
                record {
                    $0.messageCount += 1
                    if $0.binaryMessages.count < RecordedWebSocketSession.recordLimit { $0.binaryMessages.append(bytes) }
                }
                if options.mode == .echo && !closeSent {
                    try writer.sleep(milliseconds: options.echoDelayMilliseconds)
                    try send(encoder.encode(opcode: .binary, payload: bytes))
                }
            case .ping(let payload):
                record { $0.pingsReceived += 1 }
                if !options.ignorePings && !closeSent { try send(encoder.pong(payload)) }
            case .pong:
                record { $0.pongsReceived += 1 }
            case .close(let code, let reason):
                record {
                    $0.receivedClose = true
                    $0.closeCode = code
                    $0.closeReason = reason
                }
                // Echo the status code (RFC 6455 §5.5.1) unless this answers our own close.
                if !closeSent { try sendClose(code: code, reason: "") }
                return true
            }
        }
        return false
    }

    /// The bytes of a frame that breaks RFC 6455 in the given way.
    static func frame(violating violation: WebSocketEndpointOptions.Violation) -> [UInt8] {
        var out: [UInt8] = []
        let text = Array("violation".utf8)
        switch violation {
        case .masked:
            let header = WebSocketFrameHeader(
                opcode: .text, maskingKey: WebSocketMaskingKey(0x12, 0x34, 0x56, 0x78), payloadLength: text.count)
            text.withUnsafeBytes { WebSocketFrameEncoder.encode(header: header, payload: $0, into: &out) }
        case .rsv:
            let header = WebSocketFrameHeader(rsv2: true, opcode: .text, payloadLength: text.count)
            text.withUnsafeBytes { WebSocketFrameEncoder.encode(header: header, payload: $0, into: &out) }
        case .utf8:
            let bad: [UInt8] = Array("bad ".utf8) + [0xFF, 0xC3, 0x28]
            let header = WebSocketFrameHeader(opcode: .text, payloadLength: bad.count)
            bad.withUnsafeBytes { WebSocketFrameEncoder.encode(header: header, payload: $0, into: &out) }
        case .opcode:
            out = [0x83, 0x00]  // FIN, opcode 0x3 (reserved), empty
        case .controlSize:
            out = [0x89, 126, 0x00, 126] + [UInt8](repeating: 0x2A, count: 126)  // ping, 16-bit length 126
        case .fragmentedControl:
            out = [0x09, 0x00]  // ping without FIN
        case .closeCode:
            out = [0x88, 0x02, 0x03, 0xED]  // close with 1005, reserved for "no status" (§7.4.1)
        }
        return out
    }
}
