import Foundation
@_spi(Transport) import RealtimeCore
import RealtimeIO
@_spi(Transport) import RealtimeWebSocket
import RealtimeTestSupport

/// Drives one ``WebSocketTransport`` in a test: starts it, reads its events with a deadline,
/// and collects what it saw.
final class TransportProbe: @unchecked Sendable {
    let transport: WebSocketTransport
    /// The transport's events (delivered into a buffer of the request's capacity).
    let events: TransportEvents
    private var iterator: TransportEvents.AsyncIterator

    init(_ url: URL, options: WebSocketOptions = TransportProbe.quietOptions, configure: (inout TransportRequest) -> Void = { _ in }) {
        var request = TransportRequest(url: url)
        request.connectTimeout = .seconds(10)
        configure(&request)
        transport = WebSocketTransport(request: request, options: options, eventLoop: .shared)
        events = transport.eventStream(capacity: request.eventBufferCapacity)
        iterator = events.makeAsyncIterator()
    }

    /// No heartbeat; tests that want one say so.
    static var quietOptions: WebSocketOptions {
        var o = WebSocketOptions()
        o.heartbeat = .disabled
        return o
    }

    /// The next event, or nil when the stream finished.
    func next() async -> TransportEvent? {
        await iterator.next()
    }

    /// Waits for `opened`; returns its info or nil if the attempt ended first.
    func opened() async -> ConnectionInfo? {
        while let event = await next() {
            switch event {
            case .opened(let info): return info
            case .ended: return nil
            default: continue
            }
        }
        return nil
    }

    /// The next message, or nil if the attempt ended (the end is kept in ``end``).
    func message() async -> Message? {
        while let event = await next() {
            switch event {
            case .message(let m): return m
            case .ended(let e):
                end = e
                return nil
            default: continue
            }
        }
        return nil
    }

    private(set) var end: TransportEnd?

    /// Reads until the attempt ends; returns the end and the messages seen on the way.
    func ended() async -> (TransportEnd?, [Message]) {
        if let end { return (end, []) }
        var messages: [Message] = []
        while let event = await next() {
            switch event {
            case .message(let m): messages.append(m)
            case .ended(let e):
                end = e
                return (e, messages)
            default: continue
            }
        }
        return (end, messages)
    }
}

/// Fails a test that would otherwise hang: runs `body`, throwing if it takes longer.
func withDeadline<T: Sendable>(_ seconds: Double = 20, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await WallTime.withDeadline(.seconds(seconds), body)
}
