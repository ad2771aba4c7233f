/// Waits until `condition` holds, for at most `within`; returns whether it held.
///
/// For the integration suites only (real servers, real sockets, wall time: a log filled by
/// another process or thread that cannot notify). Tests of the client and the transports' own
/// logic wait on what those report (`Observed`, `stateChanges`, `ManualClock.waitForSleepers`)
/// and never poll. It yields first; when the condition stays false it parks for `pollingEvery`
/// between checks, so waiting tests never spin on the few cooperative threads (2 on a 2-core
/// machine) that every other test needs. Poll less often when the condition itself is costly.
/// The default bound is generous because a sanitizer build running every suite at once can
/// take seconds for what takes milliseconds alone; the suites' time limits bound it.
public func eventually(
    within: Duration = .seconds(30), pollingEvery: Duration = .milliseconds(1), _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: within)
    var checks = 0
    while !condition() {
        if clock.now > deadline { return false }
        checks += 1
        if checks < 100 {
            await Task.yield()
        } else {
            try? await Task.sleep(for: pollingEvery)
        }
    }
    return true
}
