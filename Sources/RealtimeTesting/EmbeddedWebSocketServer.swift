#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeWebSocket

/// The server of one WebSocket attempt on an ``EmbeddedNetwork``, on the in-memory byte stream
/// the production WebSocket connection reads and writes: the test accepts the TCP connection,
/// answers the upgrade, sends frames and faults (a reset, an end of stream), and reads the
/// frames the client wrote. Each call runs what the connection queued on the loop.
public final class EmbeddedWebSocketServer: @unchecked Sendable {
    /// The request the client made for this attempt (before the transport added its own
    /// headers): URL, headers, subprotocols.
    public let request: TransportRequest
    package let stream: EmbeddedByteStream
    let loop: ManualLoop
    private var handshake: [UInt8] = []
    private var receiver = WebSocketReceiver(role: .server)
    private var encoder = WebSocketFrameEncoder(role: .server)
    /// Every frame the client sent after the upgrade, in order.
    package private(set) var received: [WebSocketMessageAssembler.Output] = []
    /// Answer the client's pings with pongs (as servers do). Default true.
    public var answersPings = true
    /// Answer the client's close frame with one echoing its code, then end the TCP
    /// connection (as servers do, RFC 6455 §5.5.1). Default true.
    public var answersClose = true
    private var closeAnswered = false

    package init(request: TransportRequest, stream: EmbeddedByteStream, loop: ManualLoop) {
        self.request = request
        self.stream = stream
        self.loop = loop
    }

    /// The text messages the client sent.
    public var texts: [String] {
        read()
        return received.compactMap { if case .text(let b) = $0 { String(decoding: b, as: UTF8.self) } else { nil } }
    }

    /// The pings the client sent (its heartbeat), answered or not.
    public var pingCount: Int {
        read()
        return received.count { if case .ping = $0 { true } else { false } }
    }

    /// The close frame the client sent: its code (nil when it carried none) and reason.
    public var closeFrame: (code: UInt16?, reason: String)? {
        read()
        for frame in received { if case .close(let code, let reason) = frame { return (code, reason) } }
        return nil
    }

    /// Whether the client's side of the connection is closed.
    public var isClosed: Bool { loop.onLoop { stream.phase == .closed } }

    /// Runs the loop whenever the client queues work on it until `condition` holds (it reads
    /// what the client wrote, as ``texts`` does), or the client's side is closed or the task
    /// cancelled; whether it held.
    package func waitUntil(_ condition: () -> Bool) async -> Bool {
        while !Task.isCancelled {
            if condition() { return true }
            // Reading may answer the client's close, so closure is checked after it.
            if isClosed { return condition() }
            // Each check runs the loop, and what runs may write: park only after a reading
            // during which nothing ran, so nothing written is left unread.
            let steps = loop.stepsRun
            if condition() { return true }
            if loop.stepsRun == steps { await loop.waitForWork() }
        }
        return condition()
    }

    /// The upgrade request the client wrote (its header lines), once complete.
    public var upgradeRequest: String? {
        let text = String(decoding: handshake, as: UTF8.self)
        return text.contains("\r\n\r\n") ? text : nil
    }

    /// Accepts the TCP connection (the client then writes its upgrade request), without
    /// answering: for an answer of the test's own (``feed(_:)``).
    public func acceptTCP() {
        loop.onLoop { stream.acceptConnection() }
        readHandshake()
    }

    /// Accepts the TCP connection and answers the upgrade with 101 (and `subprotocol`).
    public func accept(subprotocol: String? = nil) {
        accept(extensions: nil, subprotocol: subprotocol)
    }

    /// Accepts the TCP connection and answers the upgrade with 101, `extensions` as its
    /// `Sec-WebSocket-Extensions` (a permessage-deflate response, say) and `subprotocol`.
    package func accept(extensions: String?, subprotocol: String? = nil) {
        acceptTCP()
        guard let request = upgradeRequest else { preconditionFailure("the client wrote no upgrade request") }
        var head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: Self.key(in: request), sha1: OpenSSLSHA1.digest))\r\n"
        if let subprotocol { head += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        if let extensions { head += "Sec-WebSocket-Extensions: \(extensions)\r\n" }
        feed(Array((head + "\r\n").utf8))
    }

    /// Accepts the TCP connection and refuses the upgrade with `status`.
    public func refuse(status: Int) {
        acceptTCP()
        feed(Array("HTTP/1.1 \(status) Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        loop.onLoop { stream.feedEOF() }
    }

    /// Sends a text frame to the client.
    public func sendText(_ text: String) { feed(encoder.text(text)) }
    /// A text frame's bytes as this server encodes it (to feed in pieces).
    public func textFrame(_ text: String) -> [UInt8] { encoder.text(text) }
    /// Sends a binary frame to the client.
    public func sendBinary(_ bytes: [UInt8]) { feed(encoder.binary(bytes)) }
    /// Sends a ping frame to the client.
    public func sendPing(_ payload: [UInt8] = []) { feed(encoder.ping(payload)) }

    /// Sends a close frame (the client answers it; then the server closes TCP).
    public func close(code: UInt16 = 1000, reason: String = "") {
        closeAnswered = true
        feed(encoder.close(code: code, reason: reason))
        read()
        loop.onLoop { stream.feedEOF() }
    }

    /// The connection is reset (`ECONNRESET`).
    public func reset() { loop.onLoop { stream.fail() } }

    /// The server's TCP side closes (EOF) without a close frame.
    public func eof() { loop.onLoop { stream.feedEOF() } }

    /// Feeds bytes as one read, then reads what the client answered.
    public func feed(_ bytes: [UInt8]) {
        loop.onLoop { stream.feed(bytes) }
        read()
    }

    /// Decodes what the client wrote since the last read; answers pings and a close.
    @discardableResult
    package func read() -> [WebSocketMessageAssembler.Output] {
        // What the client queued (a send's drain) is written first, so what is read is current.
        loop.run()
        let bytes = loop.onLoop { stream.takeWritten() }
        guard !bytes.isEmpty, let frames = try? receiver.receive(bytes) else { return [] }
        received += frames
        for frame in frames {
            switch frame {
            case .ping(let payload) where answersPings:
                loop.onLoop { stream.feed(encoder.pong(payload)) }
            case .close(let code, _) where answersClose && !closeAnswered:
                closeAnswered = true
                loop.onLoop {
                    stream.feed(encoder.close(code: code))
                    stream.feedEOF()
                }
            default:
                break
            }
        }
        return frames
    }

    private func readHandshake() {
        handshake += loop.onLoop { stream.takeWritten() }
    }

    private static func key(in request: String) -> String {
        request.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
    }
}
#endif
