/// A file descriptor watched by an ``EventLoop``; returned by
/// `EventLoop/register(fd:interest:handler:)`.
///
/// Identifiers are never reused within a loop, so a stale registration (already
/// deregistered) is harmless: ``EventLoop/modify(_:interest:)`` and
/// ``EventLoop/deregister(_:)`` ignore it.
package struct IORegistration: Sendable, Hashable {
    /// Unique within the loop that created it.
    package let id: UInt64
    /// The watched descriptor. The loop never closes it: the owner closes it *after*
    /// deregistering.
    package let fd: Int32
}
