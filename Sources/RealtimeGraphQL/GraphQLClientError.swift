import Realtime

/// Why a subscription ended with an error, or could not start. A struct over a private code
/// (new codes never break a `switch`); ``description`` carries the code, the close code and
/// the SDK's own detail, never a payload, a variable or a connection_init value.
public struct GraphQLClientError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Base: String, Sendable, Hashable {
        case operationFailed = "operation_failed"
        case connectionRejected = "connection_rejected"
        case connectionFailed = "connection_failed"
        case decodingFailed = "decoding_failed"
        case encodingFailed = "encoding_failed"
        case closed = "closed"
    }

    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let base: Base
        init(_ base: Base) { self.base = base }
        public var description: String { base.rawValue }

        /// The server ended the operation with an `error` message (graphql-transport-ws
        /// "Error": a validation error, a failed permission check, a resolver that threw);
        /// ``GraphQLClientError/errors`` holds its GraphQL errors. The other subscriptions go on.
        public static let operationFailed = Code(.operationFailed)
        /// The server closed the connection with a code that ends the client
        /// (``GraphQLClientError/closeCode``: 4400 bad request, 4401 twice in a row,
        /// 4403 forbidden, 4406 subprotocol not acceptable, 4409 subscriber already exists):
        /// connecting again would get the same answer. Every subscription of the client ends
        /// with it.
        public static let connectionRejected = Code(.connectionRejected)
        /// The client stopped for good (its reconnect policy gave up, or a failure it does
        /// not retry: TLS, an HTTP status, a refused upgrade); ``GraphQLClientError/underlying``
        /// says why. Every subscription of the client ends with it.
        public static let connectionFailed = Code(.connectionFailed)
        /// A `next` payload did not decode as the subscription's value type; the subscription
        /// is completed (the server is told). An `error` message whose payload is not a list
        /// of GraphQL errors breaks the protocol instead: the connection is closed with 4400.
        public static let decodingFailed = Code(.decodingFailed)
        /// The subscription's variables did not encode as a JSON object; it never went out.
        public static let encodingFailed = Code(.encodingFailed)
        /// The subscription was made after ``GraphQLClient/close()``.
        public static let closed = Code(.closed)
    }

    /// What failed: a stable code that programs match on.
    public let code: Code
    /// The server's GraphQL errors (``Code/operationFailed``).
    public var errors: [GraphQLError]
    /// The close code of a ``Code/connectionRejected``.
    public var closeCode: UInt16?
    /// The server's close reason of a ``Code/connectionRejected`` (the server's own words, at
    /// most 123 bytes by RFC 6455 §5.5; strawberry, for one, names a query's syntax error there).
    public var closeReason: String?
    /// A short explanation written by the SDK.
    public var detail: String?
    /// The client's failure (``Code/connectionFailed``).
    public var underlying: RealtimeError?

    init(_ base: Base, detail: String? = nil, underlying: RealtimeError? = nil) {
        self.code = Code(base)
        self.errors = []
        self.detail = detail
        self.underlying = underlying
    }

    static func operationFailed(_ errors: [GraphQLError]) -> GraphQLClientError {
        var e = GraphQLClientError(.operationFailed)
        e.errors = errors
        return e
    }

    static func connectionRejected(closeCode: UInt16, reason: String?, detail: String) -> GraphQLClientError {
        var e = GraphQLClientError(.connectionRejected, detail: detail)
        e.closeCode = closeCode
        e.closeReason = reason.flatMap { $0.isEmpty ? nil : $0 }
        return e
    }

    /// The code, the close code, the SDK's detail, the first GraphQL error's message (at most
    /// 200 characters) and the underlying error's code.
    public var description: String {
        var text = code.description
        if let closeCode { text += " [close \(closeCode)]" }
        if let detail { text += ": \(detail)" }
        if let first = errors.first { text += ": \(first)" }
        if let underlying { text += " (\(underlying.code))" }
        return text
    }
}
