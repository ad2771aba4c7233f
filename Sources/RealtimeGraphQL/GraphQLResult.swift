/// One result of a subscription: a `next` message's payload (an `ExecutionResult`,
/// graphql-transport-ws "Next"; GraphQL spec "Response Format" §7.1).
///
/// GraphQL allows partial results: a field that failed is `null` in ``data`` and described in
/// ``errors``, while the rest of ``data`` is there. Both arrive in one result, so no partial
/// data is lost; check ``errors`` when a missing field matters. ``data`` is nil when the
/// server sent none (`"data": null`, or only errors). An `error` message, which ends the
/// operation, is not a result: the subscription throws ``GraphQLClientError/Code/operationFailed``.
public struct GraphQLResult<Value: Decodable & Sendable>: Sendable, Decodable {
    /// The operation's data, decoded as `Value`.
    public var data: Value?
    /// The errors that came with this result; empty when there were none.
    public var errors: [GraphQLError]

    /// A result; for tests.
    public init(data: Value?, errors: [GraphQLError] = []) {
        self.data = data
        self.errors = errors
    }

    private enum CodingKeys: String, CodingKey {
        case data, errors
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        data = try c.decodeIfPresent(Value.self, forKey: .data)
        errors = try c.decodeIfPresent([GraphQLError].self, forKey: .errors) ?? []
    }
}

extension GraphQLResult: Equatable where Value: Equatable {}
