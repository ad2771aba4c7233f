#if canImport(Glibc)
import Glibc
#endif

extension Socket {
    /// Accepts connections on `listener` until `wakeFD` is signalled, the listener is gone
    /// (closed or shut down), or `handle` returns false. Accepted sockets are close-on-exec, so
    /// they stay out of processes the tests spawn (openssl, curl, rtcat).
    ///
    /// A failed accept never ends the loop while the listener lives: a server that stopped
    /// accepting would leave every later client connected by the kernel and never answered.
    /// Errors of one pending connection (Linux passes them on from `accept`) are skipped; running
    /// out of descriptors or memory leaves the connection queued and waits 10 ms before trying
    /// again. `failed` hears each error but `EINTR` and `EAGAIN`. (`accept` is the system call,
    /// or a test's stand-in that fails as the kernel may: it returns -1 and sets `errno`.)
    static func acceptLoop(
        listener: Int32, wakeFD: Int32, accept: (Int32) -> Int32 = { Glibc.accept($0, nil, nil) },
        failed: (Int32) -> Void = { _ in }, _ handle: (Int32) -> Bool
    ) {
        while true {
            let ready = waitReadable(listener, orWake: wakeFD, timeoutMilliseconds: -1)
            if ready.woken { return }
            guard ready.ready else { continue }
            let fd = accept(listener)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                if !handle(fd) { return }
                continue
            }
            let error = errno
            switch error {
            case EINTR, EAGAIN: continue
            case EBADF, EINVAL, ENOTSOCK: return
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                failed(error)
                if waitReadable(wakeFD, orWake: wakeFD, timeoutMilliseconds: 10).woken { return }
            default:
                failed(error)
            }
        }
    }
}
