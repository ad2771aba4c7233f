import Testing

/// Waits until `condition` holds; records an issue after `within` (default a generous 30 s).
/// `what` is evaluated only then, so it can describe the state at the timeout.
/// For the integration suites only (real servers, real sockets, wall time: a log filled by
/// another process or thread that cannot notify): the client's own tests wait on what the
/// client, its transports and the manual clock report (``Observed``, `stateChanges`,
/// `ManualClock.waitForSleepers`), never poll. It yields first; when the condition stays
/// false it parks for a millisecond (`pollingEvery`) between checks, so waiting tests never
/// spin on the few cooperative threads (2 on a 2-core machine) that every other test needs.
/// Poll less often when the condition itself is costly (e.g. it scans a thousand clients).
@discardableResult
func eventually(
    _ what: @autoclosure () -> String, within: Duration = .seconds(30), pollingEvery: Duration = .milliseconds(1),
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: within)
    var checks = 0
    while !condition() {
        if clock.now > deadline {
            Issue.record("timed out after \(within) waiting for \(what())", sourceLocation: sourceLocation)
            return false
        }
        checks += 1
        if checks < 100 {
            await Task.yield()
        } else {
            try? await Task.sleep(for: pollingEvery)
        }
    }
    return true
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
