import RealtimeCore

/// An `AsyncSequence` a test feeds one element at a time, knowing when the reader has dealt
/// with it: ``send(_:)`` returns once the reader took the element and came back for the
/// next one (or went away), so a test can order its clock moves after the reader's work
/// without sleeping.
final class TestSource<Element: Sendable>: AsyncSequence, Sendable {
    typealias Failure = Never

    private struct State {
        var reader: CheckedContinuation<Element?, Never>?
        var waitingForReader: [CheckedContinuation<Void, Never>] = []
        var cancelled = false
        var cancellationWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    /// Hands `element` to the reader; returns when the reader asks for the next one.
    func send(_ element: Element) async {
        await readerPresent()
        let reader = state.withLock { $0.reader.take() }
        reader?.resume(returning: element)
        await readerPresent()
    }

    /// Ends the sequence (the reader's next `next()` returns nil).
    func finish() async {
        await readerPresent()
        let reader = state.withLock { $0.reader.take() }
        reader?.resume(returning: nil)
    }

    /// Returns once the reader's iteration was cancelled.
    func cancellation() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now: Bool = state.withLock { s in
                if s.cancelled { return true }
                s.cancellationWaiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    /// Returns once the reader waits for an element (or its iteration was cancelled).
    func readerPresent() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now: Bool = state.withLock { s in
                if s.reader != nil || s.cancelled { return true }
                s.waitingForReader.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    private func read() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Element?, Never>) in
                let (cancelled, waiters): (Bool, [CheckedContinuation<Void, Never>]) = state.withLock { s in
                    if Task.isCancelled || s.cancelled {
                        s.cancelled = true
                        defer {
                            s.cancellationWaiters.removeAll()
                            s.waitingForReader.removeAll()
                        }
                        return (true, s.cancellationWaiters + s.waitingForReader)
                    }
                    s.reader = c
                    defer { s.waitingForReader.removeAll() }
                    return (false, s.waitingForReader)
                }
                for w in waiters { w.resume() }
                if cancelled { c.resume(returning: nil) }
            }
        } onCancel: {
            let (reader, waiters): (CheckedContinuation<Element?, Never>?, [CheckedContinuation<Void, Never>]) = state.withLock { s in
                s.cancelled = true
                defer {
                    s.cancellationWaiters.removeAll()
                    s.waitingForReader.removeAll()
                }
                return (s.reader.take(), s.cancellationWaiters + s.waitingForReader)
            }
            reader?.resume(returning: nil)
            for w in waiters { w.resume() }
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(source: self) }

    struct Iterator: AsyncIteratorProtocol {
        let source: TestSource
        mutating func next() async -> Element? { await source.read() }
    }
}

/// Shares one iterator between a test and the child tasks it starts (`async let`), so the
/// test can ask for a batch, move the clock, then take the answer.
final class SharedIterator<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
    private var iterator: Iterator
    init(_ iterator: Iterator) { self.iterator = iterator }
    func next() async throws -> Iterator.Element? { try await iterator.next() }
}
