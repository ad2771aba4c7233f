/// One error of a GraphQL response (GraphQL spec, "Response Format" §7.1.2): a `next`
/// payload's `errors` (beside partial `data`), or an `error` message's payload, which ends
/// its operation.
///
/// `extensions` is not kept whole (it is free-form JSON); its `code` member, where servers
/// by convention name the kind of error (`UNAUTHENTICATED`, `BAD_USER_INPUT`), is ``code``.
public struct GraphQLError: Error, Sendable, Hashable, Decodable, CustomStringConvertible {
    /// The error's description, written by the server for the developer.
    public var message: String
    /// Where in the query document the error is, when the server says.
    public var locations: [Location]
    /// The response field the error belongs to (`["ticks", "note"]`, `["items", 2]`); empty
    /// when it belongs to no field (a validation error).
    public var path: [PathElement]
    /// `extensions.code` when it is a string.
    public var code: String?

    /// A line and column of the query document, both from 1.
    public struct Location: Sendable, Hashable, Decodable {
        /// The line, from 1.
        public var line: Int
        /// The column, from 1.
        public var column: Int

        /// A location in the operation's document.
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    /// One step of an error's ``GraphQLError/path``: a field name or a list index.
    public enum PathElement: Sendable, Hashable, Decodable {
        /// A field name.
        case field(String)
        /// A list index.
        case index(Int)

        public init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if let index = try? value.decode(Int.self) {
                self = .index(index)
            } else {
                self = .field(try value.decode(String.self))
            }
        }
    }

    /// An error; for tests.
    public init(message: String, locations: [Location] = [], path: [PathElement] = [], code: String? = nil) {
        self.message = message
        self.locations = locations
        self.path = path
        self.code = code
    }

    private enum CodingKeys: String, CodingKey {
        case message, locations, path, extensions
    }

    private enum ExtensionKeys: String, CodingKey {
        case code
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        message = try c.decode(String.self, forKey: .message)
        locations = try c.decodeIfPresent([Location].self, forKey: .locations) ?? []
        path = try c.decodeIfPresent([PathElement].self, forKey: .path) ?? []
        let extensions = try? c.nestedContainer(keyedBy: ExtensionKeys.self, forKey: .extensions)
        code = try? extensions?.decodeIfPresent(String.self, forKey: .code)
    }

    /// The message (at most 200 characters), then the path and the code.
    public var description: String {
        var text = String(message.prefix(200))
        if !path.isEmpty {
            let steps = path.map { step -> String in
                switch step {
                case .field(let name): return name
                case .index(let index): return "\(index)"
                }
            }
            text += " (at \(steps.joined(separator: ".")))"
        }
        if let code { text += " [\(code)]" }
        return text
    }
}
