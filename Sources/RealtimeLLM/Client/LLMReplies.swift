#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Owns "the current reply" of a chat UI: starting a reply replaces the one that was
/// streaming, and every batch it delivers says which reply (generation) it belongs to.
///
/// ```swift
/// let replies = LLMReplies()
/// Task { @MainActor in
///     for await batch in replies.batches {
///         view.show(batch.transcript.text, generation: batch.generation)
///         if batch.isLast, let error = batch.transcript.error { view.show(error) }
///     }
/// }
/// // On every send:
/// let client = try RealtimeClient(url: url, configuration: .llm(json: request, bearerToken: key))
/// replies.start(client, format: .openAI)
/// ```
///
/// **Generations.** `start(_:format:)` numbers replies 1, 2, 3, … When a reply starts, the
/// previous one is cancelled: its client is closed at once (the connection is released
/// and its request is not repeated) and nothing of it is delivered any more, not even
/// batches it had already queued. A reply that ends on its own gets a last batch
/// (``LLMReplyBatch/isLast``); a superseded or `cancel()`led one does not.
///
/// **Pace.** Each reply's deltas are coalesced (``CoalescedSequence``): a batch at most once
/// per `interval` (default 1/30 s), the first at once, consecutive text merged. A
/// consumer that lags holds back at most two batches per reply; meanwhile deltas keep
/// merging, and beyond that the connection is paused.
///
/// `batches` has a single consumer and ends after `close()` (or when the object goes
/// away).
public final class LLMReplies: Sendable {
    /// The shortest time between two batches of a reply.
    package let interval: Duration
    let driver: LLMReplyDriver

    /// Batches at most once per `interval` (default 1/30 s), timed by `clock` (default the
    /// continuous clock; tests pass a manual one).
    public init<C: Clock>(
        interval: Duration = .seconds(1) / 30, clock: C = ContinuousClock()
    ) where C.Duration == Duration {
        self.interval = interval
        self.driver = LLMReplyDriver(interval: interval, clock: CoalescingClock(clock))
    }

    deinit {
        driver.close()
    }

    /// The generation last started (0 before the first).
    public var generation: Int { driver.generation }

    /// Streams `client`'s reply as the new current reply, decoded by `format`; cancels the
    /// previous one. The client must not have been iterated (this iterates its events).
    /// After `close()` the client is closed at once and nothing is delivered.
    ///
    /// - Returns: the new reply's generation number, carried by each of its batches.
    @discardableResult
    public func start<Decoder: LLMStreamDecoder>(_ client: RealtimeClient, format: Decoder) -> Int {
        driver.start(client, format: format)
    }

    /// Starts a reply from a URL and a configuration (see `start(_:format:)`).
    ///
    /// - Throws: what `RealtimeClient.init(url:configuration:)` throws, before anything
    ///   changes (the current reply goes on).
    @discardableResult
    public func start<Decoder: LLMStreamDecoder>(
        url: URL, configuration: RealtimeClient.Configuration, format: Decoder
    ) throws -> Int {
        start(try RealtimeClient(url: url, configuration: configuration), format: format)
    }

    /// Cancels the current reply (a "stop" button): its connection closes, nothing more of
    /// it is delivered. No-op when none streams.
    public func cancel() {
        driver.cancel()
    }

    /// Cancels the current reply and ends `batches`; later starts deliver nothing.
    public func close() {
        driver.close()
    }

    /// Every reply's batches, in order, each stamped with its generation.
    public var batches: Batches { Batches(driver: driver) }
}
