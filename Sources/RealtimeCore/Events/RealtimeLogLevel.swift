/// Severity of a log record; the same levels as swift-log's `Logger.Level`, so a bridge is
/// a one-line mapping.
public enum RealtimeLogLevel: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Every step, for debugging the SDK.
    case trace
    /// Details useful when debugging an app.
    case debug
    /// Normal events (a connection opened or closed).
    case info
    /// Normal but significant events (a reconnect, a server hint).
    case notice
    /// Something unexpected that the client handled.
    case warning
    /// A failure of an attempt or an operation.
    case error
    /// A failure that stops the client.
    case critical

    public static func < (a: RealtimeLogLevel, b: RealtimeLogLevel) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .trace: return "trace"
        case .debug: return "debug"
        case .info: return "info"
        case .notice: return "notice"
        case .warning: return "warning"
        case .error: return "error"
        case .critical: return "critical"
        }
    }
}
