import Realtime
@testable import RealtimeSocketIO
import Testing

/// What goes on the wire for emits, acknowledgements and CONNECTs.
@Suite("SocketIOEncoder", .timeLimit(.minutes(1)))
struct SocketIOEncoderTests {
    struct Point: Codable, Sendable { var x: Int }

    @Test("events, acks and namespaces as the protocol writes them")
    func packets() throws {
        #expect(try SocketIOEncoder.messages(name: "hello", arguments: [1, "a/b", Point(x: 2)], namespace: "/", ackID: nil)
            == [.text(#"42["hello",1,"a/b",{"x":2}]"#)])
        #expect(try SocketIOEncoder.messages(name: "q", arguments: [], namespace: "/admin", ackID: 12) == [.text(#"42/admin,12["q"]"#)])
        #expect(try SocketIOEncoder.messages(name: nil, arguments: ["ok"], namespace: "/", ackID: 3) == [.text(#"433["ok"]"#)])
    }

    @Test("a top-level SocketIOBinary becomes a placeholder and an attachment; nested, it is refused")
    func binary() throws {
        let messages = try SocketIOEncoder.messages(
            name: "up", arguments: [SocketIOBinary([1, 2]), "x", SocketIOBinary([3])], namespace: "/", ackID: 5)
        #expect(messages == [
            .text(#"452-5["up",{"_placeholder":true,"num":0},"x",{"_placeholder":true,"num":1}]"#), .binary([1, 2]), .binary([3]),
        ])
        #expect(try SocketIOEncoder.messages(name: nil, arguments: [SocketIOBinary([9])], namespace: "/", ackID: 1).first
            == .text(#"461-1[{"_placeholder":true,"num":0}]"#))
        #expect(throws: SocketIOError.self) { try SocketIOEncoder.messages(name: "up", arguments: [[SocketIOBinary([1])]], namespace: "/", ackID: nil) }
        #expect(throws: SocketIOError.self) { try SocketIOEncoder.messages(name: "up", arguments: [], namespace: "admin", ackID: nil) }
    }

    @Test("CONNECT carries the auth object, with pid and offset in front for recovery")
    func connect() throws {
        #expect(try SocketIOEncoder.connect(namespace: "/", auth: nil, pid: nil, offset: nil) == "40")
        #expect(try SocketIOEncoder.connect(namespace: "/chat", auth: ["token": "t"], pid: nil, offset: nil) == #"40/chat,{"token":"t"}"#)
        #expect(try SocketIOEncoder.connect(namespace: "/", auth: ["token": "t"], pid: "p", offset: "7")
            == #"40{"pid":"p","offset":"7","token":"t"}"#)
        #expect(try SocketIOEncoder.connect(namespace: "/", auth: [String: String](), pid: "p", offset: nil) == #"40{"pid":"p"}"#)
        #expect(throws: SocketIOError.self) { try SocketIOEncoder.connect(namespace: "/", auth: "token", pid: nil, offset: nil) }
    }
}
