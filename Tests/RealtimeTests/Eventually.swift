import Testing

/// Waits until `condition` holds; records an issue after a generous wall-clock bound.
/// The reconnect loop reacts to events and to the manual clock, never to wall time, so this
/// only lets other tasks run. It yields first; when the condition stays false it parks for a
/// millisecond between checks, so waiting tests never spin on the few cooperative threads
/// (2 on a 2-core machine) that every other test needs.
@discardableResult
func eventually(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(30))
    var checks = 0
    while !condition() {
        if clock.now > deadline {
            Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
            return false
        }
        checks += 1
        if checks < 100 {
            await Task.yield()
        } else {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
    return true
}
