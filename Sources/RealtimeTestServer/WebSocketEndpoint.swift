import Foundation
import RealtimeCore
#if canImport(COpenSSL)
import COpenSSL
#endif

/// The `/ws` endpoint: the server side of the RFC 6455 opening handshake, then a
/// ``WebSocketServerSession`` (echo, send, close, fault modes) on the same connection.
enum WebSocketEndpoint {
    static func serve(_ writer: ResponseWriter, core: TestServerCore) throws {
        let request = writer.request
        let options = WebSocketEndpointOptions(query: request.query)
        if try !BuiltinEndpoints.authorize(writer, token: request.query["auth"]) { return }
        if let refuse = options.refuse {
            try BuiltinEndpoints.serveText(writer, status: refuse, "upgrade refused with \(refuse)\n")
            return
        }
        // RFC 6455 §4.2.1: what a server must find in the opening handshake.
        let headers = request.headers
        guard request.method == "GET",
              headers["Upgrade"]?.lowercased() == "websocket",
              headers["Connection"]?.lowercased().split(separator: ",")
                .contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) == true,
              headers["Sec-WebSocket-Version"] == "13",
              let key = headers["Sec-WebSocket-Key"], Data(base64Encoded: key)?.count == 16
        else {
            try BuiltinEndpoints.serveText(
                writer, status: 400, headers: ["Sec-WebSocket-Version": "13"], "not a WebSocket upgrade\n")
            return
        }
        let offered = headers.values(for: "Sec-WebSocket-Protocol")
            .flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let selected: String? =
            switch options.subprotocol {
            case "*": offered.first
            case let name?: name.isEmpty ? nil : name
            case nil: nil
            }
        var accept = WebSocketHandshake.acceptValue(forKey: key, sha1: sha1)
        if options.badAccept { accept = WebSocketHandshake.acceptValue(forKey: key + "x", sha1: sha1) }
        var response: HTTPHeaders = ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": accept]
        if let selected { response.add(name: "Sec-WebSocket-Protocol", value: selected) }

        core.recordWebSocketSession(
            RecordedWebSocketSession(connectionNumber: request.connectionNumber, target: request.target, subprotocol: selected))
        defer { core.updateWebSocketSession(request.connectionNumber) { $0.ended = true } }
        try writer.writeHead(status: 101, headers: response, framing: .none)
        let session = WebSocketServerSession(writer: writer, options: options) { update in
            core.updateWebSocketSession(request.connectionNumber, update)
        }
        try session.run()
    }

    /// SHA-1 for `Sec-WebSocket-Accept` (RFC 6455 §4.2.2), from OpenSSL's libcrypto.
    static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        _ = SHA1(bytes, bytes.count, &digest)
        return digest
    }
}
