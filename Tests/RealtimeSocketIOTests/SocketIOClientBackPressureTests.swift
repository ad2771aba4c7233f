#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeSocketIO
import RealtimeTestSupport
@_spi(Transport) import RealtimeTesting
import Testing

/// An application that stops reading `events`, on the embedded rig of ``SocketIOClientTests``:
/// the client stops reading the connection (nothing is dropped), and the server's pings wait
/// with the events in front of them.
@Suite("SocketIOClient: back-pressure", .timeLimit(.minutes(2)))
struct SocketIOClientBackPressureTests {
    /// Far more events than every buffer between the socket and the application holds (the
    /// event buffer, the client's, the transport's) at the capacities of ``rig()``.
    static let flood = 600

    /// Small buffers, so the flood fills them all.
    static func rig() throws -> SocketIOClientTests.Rig {
        try SocketIOClientTests.Rig { c in
            c.eventBufferCapacity = 4
            c.client.eventBufferCapacity = 16
        }
    }

    /// The names of the next `count` `.event`s (other events are passed over), read while the loop runs (a consumer catching up
    /// makes the transport read again, which is loop work).
    static func names(_ rig: SocketIOClientTests.Rig, count: Int) async -> [String] {
        await rig.servers.network.runningLoop { [socket = rig.socket] in
            var names: [String] = []
            var events = socket.events.makeAsyncIterator()
            while names.count < count, let event = await events.next() {
                if case .event(let message) = event { names.append(message.name) }
            }
            return names
        }
    }

    /// Events beyond `eventBufferCapacity` (and every buffer under it) that arrive while the
    /// application does not read are all delivered, once and in order, when it reads.
    @Test("a flood while the application does not read: every event arrives once, in order")
    func floodLosesNothing() async throws {
        let rig = try Self.rig()
        let server = await rig.connect()
        for n in 0..<Self.flood { server.text(#"42["e\#(n)"]"#) }
        let names = await Self.names(rig, count: Self.flood)
        #expect(names == (0..<Self.flood).map { "e\($0)" })
        rig.socket.realtime.close()
    }

    /// A ping behind events the application has not read is answered once the application
    /// reads them, and it moves the heartbeat deadline then: the connection goes on.
    @Test("a ping behind a full event buffer is answered once the application reads, and the connection goes on")
    func pingAnsweredOnceTheApplicationReads() async throws {
        let rig = try Self.rig()
        let server = await rig.connect(pingInterval: 1000)
        await rig.loop.waitForTimers(1)  // the heartbeat's deadline: 21 s
        rig.loop.advanceTime(by: .seconds(1))
        for n in 0..<Self.flood { server.text(#"42["e\#(n)"]"#) }
        server.text("2")
        #expect(await Self.names(rig, count: Self.flood).count == Self.flood)
        #expect(await server.waitForSent(2) == ["40", "3"])
        rig.loop.advanceTime(by: .seconds(20) + .milliseconds(500))  // past 21 s, before the 22 s the ping armed
        #expect(server.closeCode == nil)
        rig.socket.realtime.close()
    }

    /// An application that stops reading for longer than `pingInterval + pingTimeout` loses
    /// the connection (`heartbeat_timeout`, close 1001): the ping behind its unread events
    /// never re-armed the deadline.
    @Test("an application that stops reading past pingInterval + pingTimeout loses the connection")
    func aStalledReaderLosesTheConnection() async throws {
        let rig = try Self.rig()
        let server = await rig.connect(pingInterval: 1000)
        await rig.loop.waitForTimers(1)  // the heartbeat's deadline: 21 s
        rig.loop.advanceTime(by: .seconds(1))
        for n in 0..<Self.flood { server.text(#"42["e\#(n)"]"#) }
        server.text("2")  // read, it would move the deadline to 22 s
        rig.loop.advanceTime(by: .seconds(20))
        #expect(server.closeCode == 1001, "the ping behind the unread events was not read")
        rig.socket.realtime.close()
    }
}
#endif
