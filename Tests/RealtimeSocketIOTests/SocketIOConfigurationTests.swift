import Realtime
import RealtimeSocketIO
import Testing

/// The documented defaults of `SocketIOClient.Configuration`.
@Suite struct SocketIOConfigurationTests {
    /// Each default its doc comment and the Socket.IO article name: the client underneath as
    /// `RealtimeClient.Configuration()` makes it, the path `/socket.io/`, the namespace `/`,
    /// no auth payload, no connect hook, a 10 s ack timeout, 16 attachments, 256 events.
    @Test("every documented default of the configuration")
    func documentedDefaults() {
        let c = SocketIOClient.Configuration()
        let plain = RealtimeClient.Configuration()
        #expect(c.client.sendPolicy == plain.sendPolicy && c.client.backoff == plain.backoff && c.client.reconnect == plain.reconnect)
        #expect(c.client.onOpenTimeout == plain.onOpenTimeout && c.client.eventBufferCapacity == plain.eventBufferCapacity)
        #expect(c.client.onOpen == nil && c.client.messageID == nil)
        #expect(c.path == "/socket.io/")
        #expect(c.namespaces == ["/"])
        #expect(c.auth == nil)
        #expect(c.onConnect == nil)
        #expect(c.ackTimeout == .seconds(10))
        #expect(c.maxAttachments == 16)
        #expect(c.eventBufferCapacity == 256)
    }
}
