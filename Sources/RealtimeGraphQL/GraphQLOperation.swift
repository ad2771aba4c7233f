#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore

/// A subscription's operation: its query, how its variables follow its cursor, and the
/// buffer its results wait in for the application.
final class GraphQLOperation<Value: Decodable & Sendable>: GraphQLOperationSink {
    typealias Variables = @Sendable (_ last: Value?) -> (any Encodable & Sendable)?

    let key: UInt64
    let query: String
    let operationName: String?
    let variables: Variables
    let channel: AsyncBoundedQueue<GraphQLResult<Value>, GraphQLClientError>
    private let session: GraphQLSession

    init(key: UInt64, query: String, operationName: String?, variables: @escaping Variables, session: GraphQLSession) {
        self.key = key
        self.query = query
        self.operationName = operationName
        self.variables = variables
        self.session = session
        self.channel = AsyncBoundedQueue(capacity: session.configuration.subscriptionBufferCapacity)
    }

    func subscribeMessage(id: String, cursor: (any Sendable)?) throws -> String {
        try GraphQLOutbound.subscribe(id: id, query: query, operationName: operationName, variables: variables(cursor as? Value))
    }

    func deliver(_ text: String, id: String) async {
        let result: GraphQLResult<Value>
        do {
            result = try JSONDecoder().decode(Next.self, from: Data(text.utf8)).payload
        } catch {
            session.end(key, with: GraphQLClientError(.decodingFailed, detail: Self.describe(error)))
            return
        }
        guard session.accept(key, id: id, cursor: result.data) else { return }
        await channel.push(result)
    }

    func finish(_ error: GraphQLClientError?) {
        channel.finish(throwing: error)
    }

    /// The application stopped listening.
    func cancel() {
        channel.cancel()
        session.cancel(key)
    }

    private struct Next: Decodable {
        var payload: GraphQLResult<Value>
    }

    /// Where decoding failed and why, without any value of the payload.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "the next payload did not decode as \(Value.self)" }
        let (kind, context): (String, DecodingError.Context)
        switch error {
        case .typeMismatch(_, let c): (kind, context) = ("a value of another type", c)
        case .valueNotFound(_, let c): (kind, context) = ("a null value", c)
        case .keyNotFound(let key, let c): (kind, context) = ("no member '\(key.stringValue)'", c)
        case .dataCorrupted(let c): (kind, context) = ("invalid data", c)
        @unknown default: return "the next payload did not decode as \(Value.self)"
        }
        let path = context.codingPath.dropFirst().map { $0.intValue.map(String.init) ?? $0.stringValue }
        return "the next payload did not decode as \(Value.self): \(kind) at '\(path.joined(separator: "."))'"
    }
}
