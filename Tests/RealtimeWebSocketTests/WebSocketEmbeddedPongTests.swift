import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTesting
@testable import RealtimeWebSocket

/// Pongs to a peer that pings and does not read, on the production connection: one pong at a
/// time, only the latest ping answered once the peer reads again (RFC 6455 §5.5.3), and the
/// connection ended with `peer_not_reading` when the pongs owed pass `maxOutboundBytes`.
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedPongTests {
    /// An open connection whose peer has stopped reading.
    static func deaf(maxOutboundBytes: Int = 16 << 20) -> EmbeddedWebSocket {
        var options = EmbeddedWebSocket.quietOptions
        options.maxOutboundBytes = maxOutboundBytes
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.stream.kernelCapacity = 0
        return ws
    }

    /// While a pong waits for the peer to read, later pings queue no pong of their own: once
    /// it reads, it gets that pong and one more, for the latest ping.
    @Test func onlyTheLatestPingIsAnsweredOnceThePeerReads() {
        let ws = Self.deaf()
        for n in 1...20 { ws.serverSendsPing([UInt8(n)]) }  // one read each
        #expect(ws.stream.pendingWriteBytes == 7, "one pong waits, the first: 6 bytes of header and mask, 1 of payload")
        ws.stream.kernelCapacity = .max
        ws.stream.takeWritten()  // the room makes the stream write again
        #expect(ws.clientFrames() == [.pong([1]), .pong([20])])
        #expect(ws.ended() == nil)
    }

    /// The pongs owed to a deaf peer are counted: past `maxOutboundBytes` the connection ends
    /// with `peer_not_reading`, its error carrying 1008.
    @Test func pongsOwedPastTheOutboundBoundEndThePeer() throws {
        let ws = Self.deaf(maxOutboundBytes: 1000)
        let payload = [UInt8](repeating: 9, count: 125)
        for _ in 1...8 { ws.serverSendsPing(payload) }  // one in flight, 7 owed: 7 × 131 bytes
        #expect(ws.ended() == nil, "917 bytes owed")
        ws.serverSendsPing(payload)
        let end = try #require(ws.ended(), "1048 bytes owed")
        #expect(end.error?.code == .peerNotReading && end.error?.closeCode == 1008)
    }
}
