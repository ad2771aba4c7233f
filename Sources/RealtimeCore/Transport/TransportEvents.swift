/// The events of one transport attempt as an `AsyncSequence`, for code that drives a
/// `Transport` itself instead of through `RealtimeClient` (tests, tools, benchmarks).
///
/// Creating it starts the transport (`Transport.start(delivering:)`) with a sink that keeps
/// at most `capacity` events (plus what one read delivers at once) for the consumer: when that
/// many wait, the transport stops reading from the network, and it reads again once the
/// consumer has taken half of them. It yields the attempt's events in order and finishes after
/// `ended`. If the consuming task is cancelled, iteration ends and the transport is closed
/// (contract item 6). A single consumer iterates it, once.
///
/// The sequence does not keep the transport alive: keep a reference to it while iterating (a
/// transport released early ends its attempt, and the sequence yields `ended` with
/// `cancelled`).
///
/// ```swift
/// let transport = SSETransport(request: TransportRequest(url: feedURL))
/// for await event in TransportEvents(transport) {
///     if case .message(let message) = event { print(message.text ?? "") }
/// }
/// ```
@_spi(Transport)
public final class TransportEvents: AsyncSequence, Sendable {
    public typealias Element = TransportEvent
    public typealias Failure = Never

    let channel: BoundedChannel<TransportEvent>

    /// Starts `transport`, delivering into a buffer of `capacity` events (at least 1).
    public init(_ transport: any Transport, capacity: Int = 256) {
        let channel = BoundedChannel<TransportEvent>(capacity: Swift.max(1, capacity))
        self.channel = channel
        // Weak: the transport holds the sink, which holds the channel.
        channel.setDemandHandler { [weak transport] in transport?.resumeDelivery() }
        channel.setTerminationHandler { [weak transport] in transport?.close() }
        transport.start(delivering: ChannelSink(channel))
    }

    /// Number of events delivered and not yet taken by the consumer.
    package var bufferedCount: Int { channel.bufferedCount }

    /// The next event if one is buffered, without waiting (see `BoundedChannel.poll()`).
    package func poll() -> TransportEvent? { channel.poll() }

    /// Ends iteration from the consumer's side, as a cancelled consumer does: the transport
    /// is closed.
    package func terminate() { channel.terminate() }

    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = Never
        var base: BoundedChannel<TransportEvent>.AsyncIterator

        init(base: BoundedChannel<TransportEvent>.AsyncIterator) { self.base = base }

        public mutating func next() async -> TransportEvent? { await base.next() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> TransportEvent? {
            await base.next(isolation: actor)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: channel.makeAsyncIterator()) }
}

extension Transport {
    /// Starts this transport and returns its events as an `AsyncSequence`; see
    /// `TransportEvents`.
    public func eventStream(capacity: Int = 256) -> TransportEvents {
        TransportEvents(self, capacity: capacity)
    }
}

/// Moves delivered events into the adapter's channel; ends the channel after `ended`.
private final class ChannelSink: TransportSink {
    let channel: BoundedChannel<TransportEvent>

    init(_ channel: BoundedChannel<TransportEvent>) { self.channel = channel }

    func deliver(_ events: inout [TransportEvent]) -> Bool {
        var ends = false
        if case .ended? = events.last { ends = true }
        let more = channel.send(draining: &events)
        if ends { channel.finish() }
        return more
    }
}
