#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeSocketIO
import RealtimeTestSupport
@_spi(Transport) import RealtimeTesting
import RealtimeCore
import Testing

/// An `.error` event that ends no connection (a cursor store whose save threw) must
/// not mark the open connection as ended for the ack table.
@Suite("Socket.IO acks and errors that end nothing", .timeLimit(.minutes(1)))
struct SocketIOAckLifetimeTests {
    typealias Rig = SocketIOClientTests.Rig
    struct DiskFull: Error {}

    @Test func aCursorSaveFailureDoesNotFailLaterAcksOnTheOpenConnection() async throws {
        let rig = try Rig { $0.client.cursorStore = CursorStore(load: { nil }, save: { _ in throw DiskFull() }) }
        let socket = rig.socket
        var events = socket.events.makeAsyncIterator()
        let first = await rig.connect(pid: "p1")
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        first.text(#"42["tick",1,"o1"]"#)
        #expect(SocketIOClientTests.message(await events.next())?.offset == "o1")
        for _ in 0..<2000 where socket.realtime.statistics.cursorSaveFailures == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(socket.realtime.statistics.cursorSaveFailures == 1)
        first.text(#"42["tick",2]"#)
        _ = await events.next()
        guard case .open = socket.realtime.state else { Issue.record("the connection must stay open"); return }
        let call = Task { try await socket.emitWithAck("x") }
        _ = await first.waitForSent(2)
        first.text(#"430["ok"]"#)
        #expect(try await call.value.decode(String.self) == "ok")
        #expect(socket.unmatchedAcks == 0)
        socket.realtime.close()
    }
}
#endif
