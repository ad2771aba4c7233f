/// At most `limit` bodies at once; the others wait their turn, first come first served.
///
/// For suites whose tests each start a child process: the tests run in parallel, but a loaded
/// two-core machine is never asked to start all of their children at the same moment, which
/// would stretch every child's run towards its kill timeout.
public actor Slots {
    private let limit: Int
    private var inUse = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(_ limit: Int) {
        precondition(limit > 0, "Slots needs at least one slot")
        self.limit = limit
    }

    /// Runs `body` once a slot is free, and frees it after `body` returns or throws.
    public nonisolated func withSlot<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        do {
            let value = try await body()
            await release()
            return value
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        guard inUse == limit else {
            inUse += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the first waiter, if any (it stays in use), else frees it.
    private func release() {
        if waiting.isEmpty {
            inUse -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
