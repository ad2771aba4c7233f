import RealtimeCore
import RealtimeTestSupport

/// A blocking WebSocket client for testing the test server's `/ws` endpoint: the upgrade
/// by hand over ``TestServerRawClient``, frames through the RealtimeCore codec (client role).
final class TestServerWebSocketClient {
    /// RFC 6455 §1.3's sample key and its accept value.
    static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
    static let sampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    let raw: TestServerRawClient
    private(set) var head = ""
    private var pending: [UInt8] = []
    var receiver = WebSocketReceiver(role: .client)
    var encoder = WebSocketFrameEncoder(role: .client, generator: SeededGenerator(seed: 7))
    private(set) var ended: TestServerRawClient.End?

    init(port: UInt16, target: String, extraHeaders: [String] = []) throws {
        raw = try TestServerRawClient(port: port)
        raw.request(target, headers: [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: \(Self.sampleKey)",
            "Sec-WebSocket-Version: 13",
        ] + extraHeaders)
        var bytes: [UInt8] = []
        // The server answers an upgrade at once: 100 reads of 50 ms bound a server that never does.
        for _ in 0..<100 {
            let part = raw.read(for: 50)
            bytes += part.bytes
            if let end = TestServerRawClient.Response(bytes: bytes, end: .eof).find([13, 10, 13, 10]) {
                head = String(decoding: bytes[..<end], as: UTF8.self)
                pending = Array(bytes[(end + 4)...])
                break
            }
            if part.end != nil {
                head = String(decoding: bytes, as: UTF8.self)
                ended = part.end
                return
            }
        }
        if head.isEmpty && ended == nil { throw NoAnswer(bytes: bytes.count, sockets: ProcessResources.tcpTable(port: port)) }
    }

    /// No response head within 5 s, with the kernel's sockets on the port then.
    struct NoAnswer: Error, CustomStringConvertible {
        var bytes: Int
        var sockets: String
        var description: String { "no response head within 5 s (\(bytes) bytes); the sockets on the port:\n\(sockets)" }
    }

    var statusCode: Int? { head.split(separator: " ").dropFirst().first.flatMap { Int($0) } }

    func header(_ name: String) -> String? {
        TestServerRawClient.Response(bytes: Array((head + "\r\n\r\n").utf8), end: .eof).header(name)
    }

    /// Raw bytes after the handshake that arrive within `milliseconds`.
    func rawBytes(for milliseconds: Int32) -> [UInt8] {
        let part = raw.read(for: milliseconds)
        if ended == nil { ended = part.end }
        defer { pending = [] }
        return pending + part.bytes
    }

    /// The next codec outputs arriving within `milliseconds` (until at least `count` arrived).
    func receive(count: Int = 1, within milliseconds: Int32 = 2000) throws -> [WebSocketMessageAssembler.Output] {
        var outputs: [WebSocketMessageAssembler.Output] = []
        let buffered = pending
        pending = []
        outputs += try receiver.receive(buffered)
        var waited: Int32 = 0
        while outputs.count < count && waited < milliseconds && ended == nil {
            let part = raw.read(for: 50)
            waited += 50
            outputs += try receiver.receive(part.bytes)
            ended = part.end
        }
        return outputs
    }

    func send(_ frame: [UInt8]) { raw.send(frame) }
}
