#if os(Linux)
import Glibc
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
import RealtimeTestSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything one attempt produced, split by kind for assertions.
struct TransportRun: Sendable {
    var events: [TransportEvent] = []

    var opened: [ConnectionInfo] {
        events.compactMap { if case .opened(let i) = $0 { return i } else { return nil } }
    }
    var messages: [Message] {
        events.compactMap { if case .message(let m) = $0 { return m } else { return nil } }
    }
    var ends: [TransportEnd] {
        events.compactMap { if case .ended(let e) = $0 { return e } else { return nil } }
    }
    var retryHints: [Duration] {
        events.compactMap { if case .retryHint(let d) = $0 { return d } else { return nil } }
    }
    /// The single terminal event (tests expect exactly one, and last).
    var end: TransportEnd? {
        guard ends.count == 1, case .ended(let e)? = events.last else { return nil }
        return e
    }
    var ids: [String] { messages.compactMap(\.id) }
    var texts: [String] { messages.compactMap(\.text) }
}

/// Starts `transport` and collects its events until the attempt ends.
func run(_ transport: SSETransport) async -> TransportRun {
    var result = TransportRun()
    for await e in transport.eventStream(capacity: transport.request.eventBufferCapacity) { result.events.append(e) }
    return result
}

func request(_ url: URL, _ configure: (inout TransportRequest) -> Void = { _ in }) -> TransportRequest {
    var r = TransportRequest(url: url)
    r.connectTimeout = .seconds(10)
    r.idleTimeout = .seconds(20)
    configure(&r)
    return r
}

/// A loopback port that refuses connections for the rest of the process: a bound socket that
/// never listens (see ``ClosedPort``), kept open so no suite running in parallel can take it.
func unusedPort() -> UInt16 {
    let closed = try! ClosedPort()
    refusingPorts.withLock { $0.append(closed) }
    return closed.port
}

private let refusingPorts = LockedValue<[ClosedPort]>([])

#endif
