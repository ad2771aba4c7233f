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
    /// Called synchronously from the client's reconnect task; keep it quick.
    func log(level: RealtimeLogLevel, message: String, metadata: [String: String])
}
