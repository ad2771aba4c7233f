import RealtimeTestSupport
import Testing

/// ``RealtimeTestSupport/eventually(within:pollingEvery:_:)`` that records an issue naming
/// `what` when the bound passes; `what` is evaluated only then, so it can describe the state
/// at the timeout.
@discardableResult
func eventually(
    _ what: @autoclosure () -> String, within: Duration = .seconds(30), pollingEvery: Duration = .milliseconds(1),
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () -> Bool
) async -> Bool {
    if await eventually(within: within, pollingEvery: pollingEvery, condition) { return true }
    Issue.record("timed out after \(within) waiting for \(what())", sourceLocation: sourceLocation)
    return false
}

/// ``eventually(_:within:pollingEvery:sourceLocation:_:)`` that throws when the bound passes, for a test
/// whose next steps make no sense without the condition (the timeout is recorded as an issue).
func bounded(
    _ what: @autoclosure () -> String, seconds: Int, pollingEvery: Duration = .milliseconds(1),
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () -> Bool
) async throws {
    guard await eventually(
        what(), within: .seconds(seconds), pollingEvery: pollingEvery, sourceLocation: sourceLocation, condition)
    else {
        throw CancellationError()
    }
}
