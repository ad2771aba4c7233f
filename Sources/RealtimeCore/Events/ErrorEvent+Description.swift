// Short, readable and secret-free descriptions for `print`, logs and debuggers: no header
// value, no request body, no URL credentials or query, durations to the millisecond.

extension ErrorEvent: CustomStringConvertible {
    /// `network: connection refused (attempt 3); retrying in 1.5 s`: the error's own
    /// description (secret-free), the attempt, and what the client does next.
    public var description: String {
        let next: String
        if !willRetry {
            next = "not retrying"
        } else if let retryIn {
            next = "retrying in \(retryIn.millisecondsDescription)"
        } else {
            next = "retrying when the network is back"
        }
        return "\(error) (attempt \(attempt)); \(next)"
    }
}
