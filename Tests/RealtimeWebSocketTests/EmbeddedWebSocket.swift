#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import RealtimeCore
import RealtimeIO
import RealtimeTesting
import RealtimeTestServer
import RealtimeTestSupport
import Testing
@testable import RealtimeWebSocket

/// The production WebSocket transport with only its scheduler and byte stream embedded: a
/// ``ManualLoop`` whose time moves when the test says so, and an ``EmbeddedByteStream`` the
/// test plays the server on. Nothing sleeps and nothing reads a clock.
final class EmbeddedWebSocket: @unchecked Sendable {
    typealias Core = WebSocketTransportCore<ManualLoop, EmbeddedByteStream>

    let loop = ManualLoop()
    let transport: Core
    /// The transport's events, from ``start()`` on.
    private(set) var delivered: TransportEvents?
    /// Every stream the connection opened, in order (a redirect opens another).
    private let opened = LockedValue<[EmbeddedByteStream]>([])
    /// The server's side: decodes what the client writes, encodes what it answers.
    private var serverReceiver = WebSocketReceiver(role: .server)
    private var serverEncoder = WebSocketFrameEncoder(role: .server)

    /// No heartbeat, no compression, no proxy: tests that want one say so.
    static var quietOptions: WebSocketOptions {
        var options = WebSocketOptions()
        options.heartbeat = .disabled
        options.compression = .disabled
        options.proxy = .none
        return options
    }

    init(
        url: String = "ws://example.test/chat", options: WebSocketOptions = EmbeddedWebSocket.quietOptions,
        seed: UInt64 = 19, configure: (inout TransportRequest) -> Void = { _ in }
    ) {
        var request = TransportRequest(url: URL(string: url)!)
        request.idleTimeout = nil
        configure(&request)
        let loop = self.loop
        let opened = self.opened
        transport = Core(request: request, options: options, loop: loop, random: SeededGenerator(seed: seed)) { chunk in
            let stream = EmbeddedByteStream(loop: loop, readChunkSize: chunk)
            opened.withLock { $0.append(stream) }
            return stream
        }
        EndOfTest.register { [self] in
            abort()
            #expect(loop.pendingTimerCount == 0, "a timer outlived the aborted connection")
            #expect(loop.pendingTaskCount == 0, "work outlived the aborted connection")
        }
    }

    var streams: [EmbeddedByteStream] { opened.withLock { $0 } }

    /// The stream of the current connection.
    var stream: EmbeddedByteStream {
        guard let last = streams.last else { preconditionFailure("the transport opened no stream yet") }
        return last
    }

    // MARK: - Driving the client

    func start() {
        if delivered == nil { delivered = TransportEvents(transport, capacity: transport.request.eventBufferCapacity) }
        loop.run()
    }

    /// Starts, accepts TCP, answers the handshake with 101; returns the `opened` info.
    @discardableResult
    func open(extraHeaders: String = "") -> ConnectionInfo? {
        start()
        stream.acceptConnection()
        acceptHandshake(extraHeaders: extraHeaders)
        for event in events() {
            if case .opened(let info) = event { return info }
        }
        return nil
    }

    /// Answers the handshake request written so far with a valid 101.
    func acceptHandshake(extraHeaders: String = "", trailing: [UInt8] = []) {
        let request = String(decoding: stream.takeWritten(), as: UTF8.self)
        let key = request.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(TestServer.webSocketAccept(forKey: key))\r\n\(extraHeaders)\r\n"
        stream.feed(Array(head.utf8) + trailing)
    }

    func send(_ message: OutboundMessage) async throws {
        try await transport.send(message)
        loop.run()
    }

    func close(code: UInt16 = 1000, reason: String = "") {
        transport.close(code: code, reason: reason)
        loop.run()
    }

    func abort() {
        transport.abort()
        loop.run()
    }

    func advance(by duration: Duration) {
        loop.advanceTime(by: duration)
    }

    // MARK: - Playing the server

    /// Frames the client wrote since the last call (the peer reads the kernel's buffer).
    func clientFrames(max: Int = .max) -> [WebSocketMessageAssembler.Output] {
        let bytes = stream.takeWritten(max: max)
        do {
            return try serverReceiver.receive(bytes)
        } catch {
            Issue.record("the client wrote an invalid frame: \(error)")
            return []
        }
    }

    func serverSends(text: String) {
        stream.feed(serverEncoder.text(text))
    }

    func serverSendsPong() {
        stream.feed(serverEncoder.pong())
    }

    func serverSendsPing(_ payload: [UInt8] = []) {
        stream.feed(serverEncoder.ping(payload))
    }

    func serverSendsClose(code: UInt16 = 1000) {
        stream.feed(serverEncoder.close(code: code))
    }

    func serverFrame(text: String) -> [UInt8] {
        serverEncoder.text(text)
    }

    // MARK: - What the client reported

    /// Every event buffered now (polling lets a paused connection read again on the next pass).
    func events() -> [TransportEvent] {
        var out: [TransportEvent] = []
        for _ in 0..<100_000 {
            guard let event = delivered?.poll() else { break }
            out.append(event)
        }
        loop.run()
        return out
    }

    /// The `ended` among the buffered events, if the attempt is over.
    func ended() -> TransportEnd? {
        for event in events() {
            if case .ended(let end) = event { return end }
        }
        return nil
    }
}

extension WebSocketMessageAssembler.Output {
    var isPing: Bool {
        if case .ping = self { return true }
        return false
    }

    /// The text of a text message, nil for any other frame.
    var string: String? {
        if case .text(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    var closeCode: UInt16?? {
        if case .close(let code, _) = self { return .some(code) }
        return nil
    }
}

extension TransportEvent {
    var text: String? {
        if case .message(let message) = self { return message.text }
        return nil
    }
}
