#if os(Linux)
/// The part of an ``EventLoop`` that only its thread touches: registrations, timers and the
/// stop flag. Not thread-safe by design; the loop's preconditions enforce the thread rule.
final class LoopState {
    struct Registration {
        var fd: Int32
        var interest: IOInterest
        var handler: (IOInterest) -> Void
        /// epoll refused the descriptor; the handler gets one `.error` call.
        var failed = false
    }

    var registrations: [UInt64: Registration] = [:]
    var timers = TimerHeap()
    var timerBodies: [UInt64: () -> Void] = [:]
    var stopping = false
    /// Jobs of tasks that prefer this loop, made ready on the loop thread (see
    /// `EventLoop+TaskExecutor`); run before the loop next waits.
    var readyJobs: [UnownedJob] = []
    /// The loop's ``CurlMultiDriver``, created on first use.
    var curlDriver: CurlMultiDriver?
    /// What the loop has done so far (see ``EventLoop/statistics``).
    var statistics = EventLoop.Statistics()
    /// The receive buffer every socket on this loop reads into (see
    /// ``EventLoop/withReadBuffer(minimum:_:)``); nil until the first read.
    var readBuffer: UnsafeMutableRawBufferPointer?
    /// True while a read holds ``readBuffer``.
    var readBufferLent = false
    /// Most registrations since the heap was last trimmed (see `EventLoop.deregister`).
    var registrationPeak = 0
    /// When the pending trim runs (monotonic nanoseconds), pushed back by every close.
    var trimDeadline: UInt64?
    /// See ``EventLoop/local(_:make:)``.
    var locals: [ObjectIdentifier: AnyObject] = [:]
    /// Shared counter for registration and timer identifiers; 0 is the wake-up token.
    private var nextID: UInt64 = 1

    deinit {
        readBuffer?.deallocate()
    }

    func makeID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    func peekNextID() -> UInt64 { nextID }
}

@available(*, unavailable)
extension LoopState: Sendable {}
#endif
