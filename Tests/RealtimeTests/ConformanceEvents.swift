#if os(Linux)
import Realtime
@_spi(Transport) import RealtimeCore

/// A started attempt's events, read the way the rig's environment reads them; holds the
/// transport (one dropped without `close()` ends its attempt).
final class ConformanceEvents {
    let transport: any Transport
    let stream: TransportEvents
    var iterator: TransportEvents.AsyncIterator

    init(_ transport: any Transport, _ stream: TransportEvents) {
        self.transport = transport
        self.stream = stream
        iterator = stream.makeAsyncIterator()
    }
}
#endif
