import Synchronization

/// A single-consumer async channel with back-pressure signalling and no loss.
///
/// Producers (usually the I/O thread) call ``send(_:)``, which always enqueues and returns
/// whether the producer may keep going. When it returns `false` the buffer holds at least
/// `capacity` elements: the producer should stop reading its source (pause the socket or the
/// curl transfer) until the demand handler fires. The handler runs, outside the lock, when
/// the consumer has drained the buffer to half its capacity. The buffer can exceed
/// `capacity` only by what a producer had in hand before it saw `false`.
///
/// If the consuming task is cancelled, ``next()`` returns nil, the channel terminates and
/// the termination handler runs once (so the producer can close its connection).
public final class BoundedChannel<Element: Sendable>: AsyncSequence, Sendable {
    private struct State {
        var buffer: [Element] = []
        var head = 0
        var waiter: CheckedContinuation<Element?, Never>?
        var finished = false
        var terminated = false
        var producerPaused = false
        var demandHandler: (@Sendable () -> Void)?
        var terminationHandler: (@Sendable () -> Void)?

        var count: Int { buffer.count - head }

        mutating func popFirst() -> Element? {
            guard head < buffer.count else { return nil }
            let e = buffer[head]
            head += 1
            if head >= 64 && head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return e
        }

        mutating func takeDemandIfLow(capacity: Int) -> (@Sendable () -> Void)? {
            guard producerPaused, count <= capacity / 2 else { return nil }
            producerPaused = false
            return demandHandler
        }
    }

    private enum Immediate {
        case element(Element, (@Sendable () -> Void)?)
        case end
        case none
    }

    /// Queue size, in elements, at which producers are told to pause.
    public let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int) {
        precondition(capacity > 0, "BoundedChannel capacity must be positive")
        self.capacity = capacity
    }

    /// Called (outside the lock) when a paused producer may resume.
    public func setDemandHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.demandHandler = handler }
    }

    /// Called once (outside the lock) when the consumer cancels or ``terminate()`` is called.
    public func setTerminationHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.terminationHandler = handler }
    }

    /// Enqueues `element`. Returns `true` if the producer may continue, `false` if it should
    /// pause until the demand handler runs. Elements sent after ``finish()`` or after
    /// termination are discarded (the consumer is gone or the stream is over).
    @discardableResult
    public func send(_ element: Element) -> Bool {
        let action: (CheckedContinuation<Element?, Never>?, Bool) = state.withLock { s in
            if s.finished || s.terminated { return (nil, true) }
            if let w = s.waiter {
                s.waiter = nil
                return (w, true)
            }
            s.buffer.append(element)
            if s.count >= capacity {
                s.producerPaused = true
                return (nil, false)
            }
            return (nil, true)
        }
        if let waiter = action.0 {
            waiter.resume(returning: element)
        }
        return action.1
    }

    /// Number of buffered elements not yet consumed.
    public var bufferedCount: Int { state.withLock { $0.count } }

    /// Marks the end of the stream: the consumer receives what is buffered, then nil.
    public func finish() {
        let waiter: CheckedContinuation<Element?, Never>? = state.withLock { s in
            s.finished = true
            if s.count == 0, let w = s.waiter {
                s.waiter = nil
                return w
            }
            return nil
        }
        waiter?.resume(returning: nil)
    }

    /// Ends the stream from the consumer side: buffered elements are dropped, the
    /// termination handler runs once, and ``next()`` returns nil from now on.
    public func terminate() {
        let (waiter, handler): (CheckedContinuation<Element?, Never>?, (@Sendable () -> Void)?) = state.withLock { s in
            if s.terminated { return (nil, nil) }
            s.terminated = true
            s.buffer.removeAll()
            s.head = 0
            let w = s.waiter
            s.waiter = nil
            let h = s.terminationHandler
            s.terminationHandler = nil
            s.demandHandler = nil
            return (w, h)
        }
        waiter?.resume(returning: nil)
        handler?()
    }

    /// The next element, or nil at the end of the stream or when the task is cancelled.
    /// Only one task may wait at a time.
    public func next() async -> Element? {
        if Task.isCancelled {
            terminate()
            return nil
        }
        if let (e, demand) = tryPop() {
            demand?()
            return e
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Element?, Never>) in
                let immediate: Immediate = state.withLock { s in
                    if s.terminated { return .end }
                    if let e = s.popFirst() {
                        return .element(e, s.takeDemandIfLow(capacity: capacity))
                    }
                    if s.finished { return .end }
                    precondition(s.waiter == nil, "BoundedChannel supports a single consumer")
                    s.waiter = c
                    return .none
                }
                switch immediate {
                case .element(let e, let demand):
                    c.resume(returning: e)
                    demand?()
                case .end:
                    c.resume(returning: nil)
                case .none:
                    break
                }
            }
        } onCancel: {
            self.terminate()
        }
    }

    private func tryPop() -> (Element, (@Sendable () -> Void)?)? {
        state.withLock { s -> (Element, (@Sendable () -> Void)?)? in
            guard let e = s.popFirst() else { return nil }
            return (e, s.takeDemandIfLow(capacity: capacity))
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let channel: BoundedChannel
        public mutating func next() async -> Element? { await channel.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: self) }
}
