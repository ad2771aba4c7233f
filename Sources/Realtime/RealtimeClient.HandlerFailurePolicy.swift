extension RealtimeClient {
    /// What `consume` does when its handler throws.
    ///
    /// The default, ``stop``, closes the client and rethrows: a handler that throws has met a
    /// failure only the app can judge (a bug, a message it cannot decode, a database that is
    /// gone), and calling it again with the same event assumes the handler is idempotent and
    /// the failure transient, which only the app can promise. Ending on a throw is also what
    /// a `for try await` loop and `forEach`-style APIs do, so it is what Swift users expect;
    /// a poison message redelivered forever would instead stall the stream in silence.
    /// ``redeliver(maxDeliveries:after:)`` opts in to retrying.
    public struct HandlerFailurePolicy: Sendable, Hashable {
        enum Base: Sendable, Hashable {
            case stop
            case redeliver(maxDeliveries: Int, delay: Duration)
        }

        let base: Base

        /// Close the client and rethrow the handler's error (the default). The event is not
        /// processed: the cursor stays before it.
        public static let stop = HandlerFailurePolicy(base: .stop)

        /// Hand the same event to the handler again after `delay` (on the client's clock),
        /// until it returns normally or it has been handed over `maxDeliveries` times in
        /// all; then close the client and rethrow the handler's last error. The cursor moves
        /// past the event only when the handler returns normally; events that arrive
        /// meanwhile wait in the client's bounded buffer (when it is full, the transport
        /// stops reading) and follow in order. The redelivery happens in this process, so it
        /// needs no help from the server (a WebSocket without ids, an SSE server that ignores
        /// `Last-Event-ID`, get the same event again). If the client is closed during the
        /// delay, nothing is redelivered and the handler's error is rethrown.
        ///
        /// - Parameters:
        ///   - maxDeliveries: deliveries of one event, the first included; at least 1.
        ///     Default 3.
        ///   - delay: the pause before each redelivery; not negative. Default 1 s.
        public static func redeliver(maxDeliveries: Int = 3, after delay: Duration = .seconds(1)) -> HandlerFailurePolicy {
            HandlerFailurePolicy(base: .redeliver(maxDeliveries: maxDeliveries, delay: delay))
        }

        /// Throws `invalidConfiguration` for a bound below 1 or a negative delay.
        func validate() throws {
            guard case .redeliver(let max, let delay) = base else { return }
            guard max >= 1 else {
                throw RealtimeError(.invalidConfiguration, detail: "redeliver: maxDeliveries must be at least 1")
            }
            guard delay >= .zero else {
                throw RealtimeError(.invalidConfiguration, detail: "redeliver: the delay must not be negative")
            }
        }
    }
}
