/// Where a transport delivers the events of its attempt: handed to `Transport.start(delivering:)`
/// by the transport's owner (`RealtimeClient`, or `TransportEvents` for a direct user).
///
/// The transport calls ``deliver(_:)`` on its I/O thread, one call per read (a batch, in
/// order), never from two threads at once and never after delivering `ended`. The sink runs
/// synchronously on that thread, so it must not block: it moves the events into its own
/// bounded buffer and says whether there is room for more. After a `false` the transport stops
/// reading from the network (TCP back-pressure) until its owner calls
/// `Transport.resumeDelivery()`; it may deliver what it already had in hand before it
/// stopped, so a sink's buffer can exceed its bound by one read.
@_spi(Transport)
public protocol TransportSink: AnyObject, Sendable {
    /// Takes every event out of `events`, in order, leaving it empty (the transport reuses its
    /// storage). Returns false when the sink is full: the transport pauses reading until
    /// `Transport.resumeDelivery()`.
    func deliver(_ events: inout [TransportEvent]) -> Bool
}
