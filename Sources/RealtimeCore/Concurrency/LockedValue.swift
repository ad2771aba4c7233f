#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the lock every stateful object in the package uses.
///
/// Why not `Synchronization.Mutex`: on Linux it waits on a raw futex, which ThreadSanitizer
/// does not intercept, so every access under a `Mutex` is reported as a data race and a real
/// race cannot be told from a false one. A `pthread_mutex_t` is understood by both sanitizers
/// and, in its default kind, is not a priority-inheritance futex either. The price is one
/// allocation per lock (the mutex must not move) and a library call per acquisition, which
/// measured no different on the channel's hot path (one acquisition per batch, not per event).
///
/// Closures run under the lock: keep them short, never `await` in them, never call into
/// another component (resume continuations and call handlers after the lock is released).
@usableFromInline
package final class LockedValue<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    @inlinable
    package init(_ value: Value) {
        self.value = value
        self.mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        self.mutex.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(self.mutex, nil)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
