import Foundation
@testable import RealtimeGraphQL
import Testing

/// GraphQL errors and results as servers send them (GraphQL spec §7.1.2): optional members,
/// path steps of both kinds, `extensions.code`, partial data; descriptions bounded.
@Suite(.timeLimit(.minutes(1))) struct GraphQLErrorTests {
    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    @Test func anErrorWithEveryMember() throws {
        let error = try Self.decode(GraphQLError.self, #"""
            {"message":"denied","locations":[{"line":2,"column":3}],"path":["items",1,"name"],
             "extensions":{"code":"FORBIDDEN","detail":{"nested":[1,2]}}}
            """#)
        #expect(error == GraphQLError(
            message: "denied", locations: [.init(line: 2, column: 3)], path: [.field("items"), .index(1), .field("name")],
            code: "FORBIDDEN"))
        #expect(error.description == "denied (at items.1.name) [FORBIDDEN]")
    }

    @Test func onlyTheMessageIsRequired() throws {
        #expect(try Self.decode(GraphQLError.self, #"{"message":"m","extensions":{"code":5}}"#) == GraphQLError(message: "m"))
        #expect(throws: DecodingError.self) { try Self.decode(GraphQLError.self, #"{"locations":[]}"#) }
    }

    @Test func aLongMessageIsCutInTheDescription() {
        #expect(GraphQLError(message: String(repeating: "m", count: 5_000)).description.count == 200)
    }

    @Test func resultsWithDataErrorsOrBoth() throws {
        struct D: Decodable, Sendable, Equatable { var a: Int? }
        #expect(try Self.decode(GraphQLResult<D>.self, #"{"data":{"a":1}}"#) == GraphQLResult(data: D(a: 1)))
        #expect(try Self.decode(GraphQLResult<D>.self, #"{"data":null,"errors":[{"message":"x"}]}"#)
            == GraphQLResult(data: nil, errors: [GraphQLError(message: "x")]))
        #expect(try Self.decode(GraphQLResult<D>.self, #"{"data":{"a":null},"errors":[{"message":"x","path":["a"]}],"extensions":{}}"#)
            == GraphQLResult(data: D(a: nil), errors: [GraphQLError(message: "x", path: [.field("a")])]))
        #expect(try Self.decode(GraphQLResult<D>.self, "{}") == GraphQLResult(data: nil))
    }

    @Test func aClientErrorsDescriptionHoldsNoPayload() {
        let e = GraphQLClientError.operationFailed([GraphQLError(message: "bad input", code: "BAD_USER_INPUT")])
        #expect(e.description == "operation_failed: bad input [BAD_USER_INPUT]")
        let rejected = GraphQLClientError.connectionRejected(closeCode: 4403, reason: "Forbidden", detail: "refused")
        #expect(rejected.description == "connection_rejected [close 4403]: refused")
    }
}
