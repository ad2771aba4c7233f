#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Realtime

/// A message from the server, as graphql-transport-ws defines it ("Message types"): its
/// `type`, and for the operation messages their `id`. A `next` payload stays in the message
/// text, for the subscription to decode as its own type.
enum GraphQLInbound: Sendable, Hashable {
    case connectionAck
    case ping
    case pong
    case next(id: String)
    case error(id: String, errors: [GraphQLError])
    case complete(id: String)
    /// Not a message of the protocol ("Invalid message": answered with close code 4400).
    /// `detail` names what is wrong, never the message's content beyond its `type`.
    case invalid(detail: String)

    /// Parses `message`: a JSON object with a string `type`; `next`, `error` and `complete`
    /// carry a non-empty string `id`; a `next` payload is an object, an `error` payload an
    /// array of GraphQL errors.
    init(_ message: Message) {
        guard let text = message.text else {
            self = .invalid(detail: "a binary message")
            return
        }
        self.init(text: text)
    }

    init(text: String) {
        let decoder = JSONDecoder()
        let bytes = Data(text.utf8)
        guard let envelope = try? decoder.decode(Envelope.self, from: bytes) else {
            self = .invalid(detail: "not a JSON object with a string type and string id")
            return
        }
        switch envelope.type {
        case "connection_ack": self = .connectionAck
        case "ping": self = .ping
        case "pong": self = .pong
        case "next", "error", "complete":
            guard let id = envelope.id, !id.isEmpty else {
                self = .invalid(detail: "a \(envelope.type) message without an id")
                return
            }
            self = Self.operationMessage(envelope.type, id: id, bytes: bytes, decoder: decoder)
        default:
            self = .invalid(detail: "unknown message type '\(envelope.type.prefix(40))'")
        }
    }

    private static func operationMessage(_ type: String, id: String, bytes: Data, decoder: JSONDecoder) -> GraphQLInbound {
        switch type {
        case "next":
            guard (try? decoder.decode(NextShape.self, from: bytes)) != nil else {
                return .invalid(detail: "a next message whose payload is not an object")
            }
            return .next(id: id)
        case "error":
            guard let errors = try? decoder.decode(ErrorPayload.self, from: bytes).payload else {
                return .invalid(detail: "an error message whose payload is not a list of GraphQL errors")
            }
            return .error(id: id, errors: errors)
        default:
            return .complete(id: id)
        }
    }

    private struct Envelope: Decodable {
        var type: String
        var id: String?
    }

    private struct ErrorPayload: Decodable {
        var payload: [GraphQLError]
    }

    /// A `next` message whose payload is a JSON object (its members are the subscription's).
    private struct NextShape: Decodable {
        var payload: AnyObjectShape
    }

    /// Any JSON object, members unread.
    private struct AnyObjectShape: Decodable {
        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: Key.self)
        }
    }
}
