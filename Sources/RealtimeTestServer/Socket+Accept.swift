#if canImport(Glibc)
import Glibc
#endif

extension Socket {
    /// Accepts connections on `listener` until `wakeFD` is signalled, accept fails for good,
    /// or `handle` returns false. Accepted sockets are close-on-exec, so they stay out of
    /// processes the tests spawn (openssl, curl, rtcat).
    static func acceptLoop(listener: Int32, wakeFD: Int32, _ handle: (Int32) -> Bool) {
        while true {
            let ready = waitReadable(listener, orWake: wakeFD, timeoutMilliseconds: -1)
            if ready.woken { return }
            guard ready.ready else { continue }
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { continue }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            if !handle(fd) { return }
        }
    }
}
