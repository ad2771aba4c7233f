// Short, readable and secret-free descriptions for `print`, logs and debuggers: no header
// value, no request body, no URL credentials or query, durations to the millisecond.

extension ClientEvent: CustomStringConvertible {
    /// `open: …`, `event: …`, `error: …` or `closed: …` with the payload's description.
    public var description: String {
        switch self {
        case .open(let info): return "open: \(info)"
        case .event(let message): return "event: \(message)"
        case .error(let error): return "error: \(error)"
        case .closed(let close): return "closed: \(close)"
        }
    }
}
