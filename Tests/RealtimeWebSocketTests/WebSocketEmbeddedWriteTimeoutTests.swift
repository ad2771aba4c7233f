import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTesting
@testable import RealtimeWebSocket

/// The bounds on writing that `WebSocketOptions` documents, on the production connection:
/// the write timeout and its cap by `TCP_USER_TIMEOUT`, its nil, and how long a connection
/// that fails waits for a peer that does not read its close frame.
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedWriteTimeoutTests {
    static let tick = Duration.nanoseconds(1)

    /// An open connection whose peer stops reading with 60 KiB still to take.
    static func stalled(_ configure: (inout WebSocketOptions) -> Void) async throws -> EmbeddedWebSocket {
        var options = EmbeddedWebSocket.quietOptions
        configure(&options)
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.stream.kernelCapacity = 4096
        try await ws.send(.binary([UInt8](repeating: 7, count: 64 << 10)))
        #expect(ws.stream.pendingWriteBytes > 0, "the kernel's buffer is full")
        return ws
    }

    /// The write timeout applied is at most two thirds of `socket.userTimeout`: 20 s under a
    /// 15 s user timeout ends a peer that does not read 10 to 12.5 s after the last byte left.
    @Test func theWriteTimeoutIsCappedAtTwoThirdsOfTheUserTimeout() async throws {
        let ws = try await Self.stalled {
            $0.writeTimeout = .seconds(20)
            $0.socket.userTimeout = .seconds(15)
        }
        ws.advance(by: .seconds(10) - Self.tick)
        #expect(ws.ended() == nil, "not before the applied 10 s")
        ws.advance(by: .milliseconds(2_500) + Self.tick)
        let end = try #require(ws.ended(), "by 1.25 × 10 s")
        #expect(end.error?.code == .peerNotReading && end.error?.closeCode == 1008)
    }

    /// A nil `writeTimeout` disables the check: a peer that never reads is not ended by it,
    /// and the message goes out once it reads again.
    @Test func aNilWriteTimeoutNeverEndsAPeerThatDoesNotRead() async throws {
        let ws = try await Self.stalled {
            $0.writeTimeout = nil
            $0.socket.userTimeout = .seconds(30)
        }
        ws.advance(by: .seconds(3600))
        #expect(ws.ended() == nil, "an hour without a byte taken")
        var taken = 0
        while ws.stream.unreadBytes > 0 { taken += ws.stream.takeWritten().count }
        #expect(taken > 64 << 10, "the whole frame arrived")
        #expect(ws.ended() == nil)
    }

    /// A connection failed for a violation, whose peer does not read its close frame, ends
    /// with the violation 1 s after it, or after `closeTimeout` when that is shorter.
    @Test(arguments: [(5_000, 1_000), (300, 300)])
    func aFailedConnectionWaitsAtMostOneSecondForItsCloseFrame(closeTimeoutMilliseconds: Int, endsAfterMilliseconds: Int) throws {
        var options = EmbeddedWebSocket.quietOptions
        options.closeTimeout = .milliseconds(closeTimeoutMilliseconds)
        let ws = EmbeddedWebSocket(options: options)
        #expect(ws.open() != nil)
        ws.stream.kernelCapacity = 0
        ws.stream.feed([0x83, 0x00])  // a reserved opcode
        ws.advance(by: .milliseconds(endsAfterMilliseconds) - Self.tick)
        #expect(ws.ended() == nil, "the close frame still has time to leave")
        ws.advance(by: Self.tick)
        let end = try #require(ws.ended())
        #expect(end.error?.code == .protocolViolation && end.error?.closeCode == 1002)
        #expect(ws.stream.closedByOwner)
    }
}
