/// A JSON value for ``JSONLineWriter``: a scalar, or an object of such values.
enum JSONValue: Sendable, Hashable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    /// A nested object, keys in the given order.
    case object([Field])

    struct Field: Sendable, Hashable {
        var key: String
        var value: JSONValue

        init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }
}
