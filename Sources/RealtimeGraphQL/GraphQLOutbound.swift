#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The client's messages (graphql-transport-ws "Message types"), as the JSON text of one
/// WebSocket text message each. Ids are the client's decimal counters, which need no escaping.
enum GraphQLOutbound {
    static let ping = #"{"type":"ping"}"#
    static let pong = #"{"type":"pong"}"#

    /// `connection_init`, with the application's `payload` when it gives one.
    static func connectionInit(payload: (any Encodable & Sendable)?) throws -> String {
        guard let payload else { return #"{"type":"connection_init"}"# }
        return #"{"type":"connection_init","payload":"# + (try object(payload, what: "the connection_init payload")) + "}"
    }

    /// `subscribe` for operation `id`.
    static func subscribe(id: String, query: String, operationName: String?, variables: (any Encodable & Sendable)?) throws -> String {
        var members = [#""query":"# + (try string(query))]
        if let operationName { members.append(#""operationName":"# + (try string(operationName))) }
        if let variables { members.append(#""variables":"# + (try object(variables, what: "the variables"))) }
        return #"{"id":"\#(id)","type":"subscribe","payload":{"# + members.joined(separator: ",") + "}}"
    }

    /// `complete` for operation `id`: the client stops listening.
    static func complete(id: String) -> String {
        #"{"id":"\#(id)","type":"complete"}"#
    }

    /// `value` as JSON text, which must be an object (the protocol's `Record<string, unknown>`).
    static func object(_ value: any Encodable & Sendable, what: String) throws -> String {
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(value)
        } catch {
            throw GraphQLClientError(.encodingFailed, detail: "\(what) did not encode (\(type(of: error)))")
        }
        guard bytes.first(where: { !whitespace.contains($0) }) == UInt8(ascii: "{") else {
            throw GraphQLClientError(.encodingFailed, detail: "\(what) must encode to a JSON object")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

    private static func string(_ text: String) throws -> String {
        String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
    }
}
