// Short, readable and secret-free descriptions for `print`, logs and debuggers: no header
// value, no request body, no URL credentials or query, durations to the millisecond.

extension CloseEvent: CustomStringConvertible {
    /// `clean, code 1000 "bye"; reconnecting` or `cut; not reconnecting`.
    public var description: String {
        var s = clean ? "clean" : "cut"
        if let code { s += ", code \(code)" }
        if let reason, !reason.isEmpty { s += " \"\(reason.prefix(123))\"" }
        return s + (willReconnect ? "; reconnecting" : "; not reconnecting")
    }
}
