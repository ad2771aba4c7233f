/// Receives the client's log records (shaped like swift-log's `LogHandler`, without the
/// dependency). Records never contain secrets: no header values, no bodies, no URL query
/// or credentials, only the scheme, host, port and path.
///
/// Bridge to swift-log:
/// ```swift
/// struct SwiftLogBridge: RealtimeLogHandler {
///     let logger: Logger
///     func log(level: RealtimeLogLevel, message: String, metadata: [String: String]) {
///         logger.log(level: Logger.Level(rawValue: level.description)!, "\(message)",
///                    metadata: metadata.mapValues { .string($0) })
///     }
/// }
/// ```
public protocol RealtimeLogHandler: Sendable {
    /// Called synchronously, on whichever thread is driving the client at that moment: the
    /// consumer's task, a reconnect timer's task, or the I/O event loop's thread, which serves
    /// every connection of the process. A handler that blocks (file or network I/O, a lock held
    /// elsewhere) stalls all of them while it runs: keep it to formatting and handing the record
    /// to a queue of your own.
    func log(level: RealtimeLogLevel, message: String, metadata: [String: String])
}
