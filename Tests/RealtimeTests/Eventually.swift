import Testing

/// Yields until `condition` holds; records an issue after a generous wall-clock bound.
/// Not a sleep: it only gives other tasks the chance to run (the reconnect loop reacts to
/// events and to the manual clock, never to wall time).
@discardableResult
func eventually(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(10))
    while !condition() {
        if clock.now > deadline {
            Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
            return false
        }
        await Task.yield()
    }
    return true
}
