#if os(Linux)
import Glibc

/// Runs blocking work (a `getaddrinfo` call) on a short-lived thread of its own.
///
/// Why not `DispatchQueue.global()`: on Linux its default-QoS threads are the same ones that
/// run Swift concurrency's cooperative pool (one per core). A resolver stuck for seconds on an
/// unresponsive DNS server would hold one of them, and with a few connections retrying at
/// once the host application's async code would stall. A detached thread costs tens of
/// microseconds per connection attempt and blocks no one.
enum DetachedThread {
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread (256 KiB stack). Falls back to running it on
    /// the calling thread only if the system refuses a new thread.
    static func run(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attr, 256 * 1024)
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attr, { arg in
            let work = Unmanaged<Work>.fromOpaque(arg!).takeRetainedValue()
            work.body()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
        }
    }
}
#endif
