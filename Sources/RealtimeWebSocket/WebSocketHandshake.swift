#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if os(Linux)
import COpenSSL
#endif
import RealtimeCore

/// TEMPORARY: the opening handshake until the codec's builder/validator lands.
struct WebSocketHandshake: Sendable {
    struct Accepted: Sendable {
        var subprotocol: String?
        var extensions: [String]
    }

    let key: String
    let requestBytes: [UInt8]
    let offeredProtocols: [String]

    init(target: WebSocketTarget, request: TransportRequest) {
        var rng = SystemRandomNumberGenerator()
        let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        key = Data(nonce).base64EncodedString()
        offeredProtocols = request.subprotocols
        var lines = [
            "GET \(target.resource) HTTP/1.1",
            "Host: \(target.hostHeader)",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)",
            "Sec-WebSocket-Version: 13",
        ]
        if !request.subprotocols.isEmpty {
            lines.append("Sec-WebSocket-Protocol: \(request.subprotocols.joined(separator: ", "))")
        }
        for field in request.headers.fields {
            lines.append("\(field.name): \(field.value)")
        }
        requestBytes = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    func validate(_ head: HTTPResponseHead) throws(RealtimeError) -> Accepted {
        guard head.headers["Upgrade"]?.lowercased() == "websocket" else {
            throw RealtimeError(.handshake, detail: "missing Upgrade: websocket", status: 101)
        }
        guard head.headers["Sec-WebSocket-Accept"] == Self.accept(for: key) else {
            throw RealtimeError(.handshake, detail: "wrong Sec-WebSocket-Accept", status: 101)
        }
        let proto = head.headers["Sec-WebSocket-Protocol"]
        if let proto, !offeredProtocols.contains(proto) {
            throw RealtimeError(.handshake, detail: "server chose a subprotocol we did not offer", status: 101)
        }
        if head.headers["Sec-WebSocket-Extensions"] != nil {
            throw RealtimeError(.handshake, detail: "server accepted an extension we did not offer", status: 101)
        }
        return Accepted(subprotocol: proto, extensions: [])
    }

    static func accept(for key: String) -> String {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        _ = EVP_Digest(input, input.count, &digest, &length, EVP_sha1(), nil)
        return Data(digest.prefix(Int(length))).base64EncodedString()
    }
}
