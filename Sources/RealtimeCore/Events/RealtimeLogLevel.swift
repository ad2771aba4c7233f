/// Severity of a log record; the same levels as swift-log's `Logger.Level`, so a bridge is
/// a one-line mapping.
public enum RealtimeLogLevel: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error, critical

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
