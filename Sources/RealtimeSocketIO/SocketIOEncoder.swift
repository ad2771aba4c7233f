#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Realtime

/// Builds the WebSocket messages of one outgoing packet: the Engine.IO message packet `4…`
/// and, for binary attachments, the binary messages that follow it.
enum SocketIOEncoder {
    /// An EVENT (or BINARY_EVENT when an argument is a ``SocketIOBinary``) named `name`, or an
    /// ACK (BINARY_ACK) when `name` is nil.
    static func messages(
        name: String?, arguments: [any Encodable & Sendable], namespace: String, ackID: Int?
    ) throws -> [OutboundMessage] {
        guard namespace.hasPrefix("/"), !namespace.contains(",") else {
            throw SocketIOError(.invalidArgument, detail: "a namespace starts with / and has no comma")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        var items: [String] = []
        var attachments: [[UInt8]] = []
        if let name { items.append(try text(encoder, name)) }
        for argument in arguments {
            if let binary = argument as? SocketIOBinary {
                items.append(#"{"_placeholder":true,"num":\#(attachments.count)}"#)
                attachments.append(binary.bytes)
            } else {
                items.append(try text(encoder, argument))
            }
        }
        let kind: SocketIOPacket.Kind = name == nil
            ? (attachments.isEmpty ? .ack : .binaryAck)
            : (attachments.isEmpty ? .event : .binaryEvent)
        let payload = Array(("[" + items.joined(separator: ",") + "]").utf8)
        let packet = SocketIOPacket(kind: kind, namespace: namespace, ackID: ackID, attachments: attachments.count, payload: payload)
        return [.text("4" + packet.encoded)] + attachments.map { .binary($0) }
    }

    /// `40[/nsp,]{…}`: the CONNECT of `namespace` with the auth object, to which the session's
    /// `pid` and `offset` are added for connection state recovery.
    static func connect(namespace: String, auth: (any Encodable & Sendable)?, pid: String?, offset: String?) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        var fields: [String] = []
        if let pid {
            fields.append(#""pid":"# + (try text(encoder, pid)))
            if let offset { fields.append(#""offset":"# + (try text(encoder, offset))) }
        }
        var body = ""
        if let auth {
            let object = try text(encoder, auth).trimmingASCIISpaces()
            guard object.hasPrefix("{"), object.hasSuffix("}") else {
                throw SocketIOError(.invalidArgument, detail: "the auth payload of \(namespace) is not a JSON object")
            }
            body = String(object.dropFirst().dropLast().trimmingASCIISpaces())
        }
        if !body.isEmpty { fields.append(body) }
        let payload = fields.isEmpty ? (auth == nil ? "" : "{}") : "{" + fields.joined(separator: ",") + "}"
        return "4" + SocketIOPacket(kind: .connect, namespace: namespace, payload: Array(payload.utf8)).encoded
    }

    private static func text(_ encoder: JSONEncoder, _ value: any Encodable) throws -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch let error as SocketIOError {
            throw error
        } catch {
            throw SocketIOError(.invalidArgument, detail: "JSONEncoder refused a \(type(of: value))")
        }
    }
}
