import Realtime
import Synchronization
@_spi(Transport) import RealtimeCore

/// One attempt's transport, wrapped: the session sends on it (a message decided for this
/// connection goes out on it or nowhere), closes it with 4400 when the server breaks the
/// protocol, and rewrites its end to say what the close code means (see
/// ``GraphQLSession/transportEnded(_:_:violation:)``). Everything else is the inner transport's.
final class GraphQLTransport: Transport {
    let inner: any Transport
    let attempt: Int
    private weak let session: GraphQLSession?
    /// Why the session closed the connection, once it did.
    private let violation = LockedValue<String?>(nil)

    init(inner: any Transport, attempt: Int, session: GraphQLSession) {
        self.inner = inner
        self.attempt = attempt
        self.session = session
    }

    var kind: TransportKind { inner.kind }

    func start(delivering sink: any TransportSink) {
        inner.start(delivering: GraphQLTransportSink(outer: sink, transport: self))
    }

    func resumeDelivery() { inner.resumeDelivery() }
    func send(_ message: OutboundMessage) async throws { try await inner.send(message) }
    func send(_ message: OutboundMessage, flush: Bool) async throws { try await inner.send(message, flush: flush) }
    func close(code: UInt16, reason: String) { inner.close(code: code, reason: reason) }
    func verifyConnection(within timeout: Duration) { inner.verifyConnection(within: timeout) }
    func abort() { inner.abort() }

    /// Closes the connection with 4400 ("Invalid message") and a reason naming `detail`.
    func failProtocol(_ detail: String) {
        let first = violation.withLock { v in
            guard v == nil else { return false }
            v = detail
            return true
        }
        guard first else { return }
        inner.close(code: 4400, reason: Self.reason(detail))
    }

    /// What the client is told about the end `end` of this attempt.
    func ended(_ end: TransportEnd) -> TransportEnd {
        let detail = violation.withLock { $0 }
        return session?.transportEnded(self, end, violation: detail) ?? end
    }

    /// `detail` cut to the 123 bytes a close reason may hold (RFC 6455 §5.5), at a character.
    static func reason(_ detail: String) -> String {
        var reason = ""
        for character in detail {
            guard reason.utf8.count + character.utf8.count <= 123 else { break }
            reason.append(character)
        }
        return reason
    }
}
