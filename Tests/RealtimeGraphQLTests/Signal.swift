/// A one-shot event one task waits for without polling (bounded by the suite's time limit).
final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let input: AsyncStream<Void>.Continuation

    init() {
        (stream, input) = AsyncStream.makeStream(of: Void.self)
    }

    func raise() {
        input.yield()
        input.finish()
    }

    /// Returns once ``raise()`` was called (at once if it was already).
    func wait() async {
        for await _ in stream { return }
    }
}
