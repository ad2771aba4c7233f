import Realtime
@testable import RealtimeSocketIO
import Testing

/// The Socket.IO v5 packet codec: the examples of the protocol's "Packet encoding" section,
/// round trips, and every malformed header refused with a typed error.
@Suite("SocketIOPacket", .timeLimit(.minutes(1)))
struct SocketIOPacketTests {
    static func decode(_ text: String, maxAttachments: Int = 16) throws(RealtimeError) -> SocketIOPacket {
        try SocketIOPacket.decode(Array(text.utf8), maxAttachments: maxAttachments)
    }

    @Test("the protocol's examples decode and encode back byte for byte", arguments: [
        "0", "0/admin,", #"0{"token":"123"}"#, #"0/admin,{"sid":"oSO0OpakMV_3jnilAAAA"}"#,
        #"4{"message":"Not authorized"}"#, "1/admin,", #"2["foo"]"#, #"2/admin,["bar"]"#,
        #"212["foo"]"#, #"3/admin,13["bar"]"#, #"51-["baz",{"_placeholder":true,"num":0}]"#,
        #"52-/admin,456["baz",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#,
        #"61-/admin,456[{"_placeholder":true,"num":0}]"#,
    ])
    func roundTrip(text: String) throws {
        let packet = try Self.decode(text)
        #expect(packet.encoded == text)
    }

    @Test("fields: type, attachments, namespace, ack id, payload")
    func fields() throws {
        let p = try Self.decode(#"52-/admin,456["baz",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
        #expect(p.kind == .binaryEvent && p.attachments == 2 && p.namespace == "/admin" && p.ackID == 456)
        #expect(String(decoding: p.payload, as: UTF8.self).hasPrefix(#"["baz","#))
        let q = try Self.decode(#"2["foo"]"#)
        #expect(q.namespace == "/" && q.ackID == nil && q.attachments == 0)
    }

    @Test("malformed packets are protocol violations", arguments: [
        "", "7", "x", #"2"#, #"2{"a":1}"#, #"2[1]"#, #"2["a""#, #"3["a"]"#, "0[1]", #"4[1]"#,
        "5-[\"a\"]", #"5x-["a"]"#, #"51["a"]"#, #"2/admin["a"]"#, #"21234567890123456["a"]"#,
        "2[\"a\",\u{01}]", #"2["a",tru]"#, #"2["a",01]"#, #"2["a",1.]"#, #"2["a"] x"#,
    ])
    func malformed(text: String) {
        #expect(throws: RealtimeError.self) { try Self.decode(text) }
        #expect((try? Self.decode(text)) == nil)
        do {
            _ = try Self.decode(text)
        } catch {
            #expect(error.code == .protocolViolation)
            #expect(!(error.detail ?? "").contains(text) || text.count < 2, "the detail names the rule, not the packet")
        }
    }

    @Test("more attachments than the bound is a limit (message_too_large), not a parse")
    func attachmentBound() {
        #expect(throws: RealtimeError.self) { try Self.decode(#"53-["a",1]"#, maxAttachments: 2) }
        do {
            _ = try Self.decode(#"59999999999-["a"]"#, maxAttachments: 2)
        } catch {
            #expect(error.code == .protocolViolation, "ten digits are no count")
        }
        do {
            _ = try Self.decode(#"53-["a"]"#, maxAttachments: 2)
        } catch {
            #expect(error.code == .messageTooLarge)
        }
        #expect((try? Self.decode(#"52-["a"]"#, maxAttachments: 2))?.attachments == 2)
    }

    @Test("nesting deeper than the scanner's bound is refused without recursion past it")
    func deepNesting() {
        let deep = "2[\"a\"," + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "]"
        #expect(throws: RealtimeError.self) { try Self.decode(deep) }
        let fine = "2[\"a\"," + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "]"
        #expect((try? Self.decode(fine)) != nil)
    }
}
