/// A bad command line: the message says what is wrong (never a header value); the command
/// prints it with its usage and exits 2.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
