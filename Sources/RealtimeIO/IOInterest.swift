/// The readiness conditions an ``EventLoop`` registration watches for, and reports.
///
/// `error` and `hangup` are always reported when they occur, whether or not they are in the
/// registered interest (epoll(7) semantics); asking for them has no extra effect.
package struct IOInterest: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Data (or EOF) can be read without blocking.
    package static let readable = IOInterest(rawValue: 1 << 0)
    /// Data can be written without blocking (or a non-blocking connect finished).
    package static let writable = IOInterest(rawValue: 1 << 1)
    /// The descriptor has a pending error (`SO_ERROR`).
    package static let error = IOInterest(rawValue: 1 << 2)
    /// The peer closed its end (or both directions are shut down).
    package static let hangup = IOInterest(rawValue: 1 << 3)

    /// No condition: the registration stays, but only errors and hang-ups are reported.
    package static let none: IOInterest = []
}
