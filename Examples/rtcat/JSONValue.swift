/// A JSON scalar for ``JSONLineWriter``.
enum JSONValue: Sendable, Hashable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
}
