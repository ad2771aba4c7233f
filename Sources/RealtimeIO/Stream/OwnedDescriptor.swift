#if os(Linux)
import Glibc

/// A descriptor handed to a task on a loop, to be closed there after it leaves epoll; closed
/// when released if that never happened (the loop stopped first and dropped the task unrun).
package final class OwnedDescriptor: @unchecked Sendable {
    /// The descriptor, or -1 once closed. Read and closed on one thread at a time (the loop's,
    /// or the last owner's when released).
    package private(set) var fd: Int32

    package init(_ fd: Int32) { self.fd = fd }

    /// Closes the descriptor; later calls do nothing.
    package func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    deinit { close() }
}
#endif
