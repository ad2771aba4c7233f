/// The continuation plumbing shared by the client's one-task waits (``DemandGate``,
/// ``Wakeup``, waiting for the consumer to catch up): park the calling task unless `park`
/// says the wait is already over, and wake it early when the task is cancelled.
///
/// - Parameters:
///   - park: under the owner's lock, either stores the continuation (returns false) or
///     declares the wait over (returns true; the continuation is then resumed at once).
///   - unpark: under the owner's lock, takes the stored continuation back, if any.
func waitAsSingleWaiter(
    park: (CheckedContinuation<Void, Never>) -> Bool,
    unpark: @Sendable () -> CheckedContinuation<Void, Never>?
) async {
    await withTaskCancellationHandler {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            if park(c) { c.resume() }
        }
    } onCancel: {
        unpark()?.resume()
    }
}
