import Realtime

/// A bad command line: the message says what is wrong (never a header value, and any URL in
/// it without its userinfo: a rejected argument may be a URL with a password); the command
/// prints it with its usage and exits 2.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = URLRedaction.redacted(message)
    }
}
