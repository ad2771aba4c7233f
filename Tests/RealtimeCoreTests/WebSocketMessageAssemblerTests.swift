import Testing
import RealtimeCore
import RealtimeTestSupport

private typealias H = WebSocketTestHelpers

@Suite(.timeLimit(.minutes(1))) struct WebSocketMessageAssemblerTests {
    @Test(arguments: Chunking.all)
    func messagesAndInterleavedControlFrames(chunking: Chunking) throws {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let wire = H.frame(.text, Array("ab".utf8) + euro.prefix(1), fin: false)
            + H.frame(.ping, [1, 2])
            + H.frame(.continuation, Array(euro.dropFirst()), fin: false)
            + H.frame(.pong, [])
            + H.frame(.continuation, Array("!".utf8))
            + H.frame(.binary, [0, 255])
            + H.frame(.binary, [1], fin: false) + H.frame(.continuation, [], fin: false) + H.frame(.continuation, [2])
            + H.frame(.text, [])
            + H.frame(.close, H.closePayload(1000, Array("bye".utf8)))
        let out = try H.receive(wire, chunking: chunking)
        #expect(out == [
            .ping([1, 2]), .pong([]), .text(Array("ab€!".utf8)), .binary([0, 255]), .binary([1, 2]), .text([]),
            .close(code: 1000, reason: "bye"),
        ])
        #expect(out[2].message == Message(content: .text("ab€!")))
        #expect(out[3].message == Message(content: .binary([0, 255])))
        #expect(out[0].message == nil)
    }

    @Test(arguments: Chunking.all)
    func emptyCloseHasNoCode(chunking: Chunking) throws {
        #expect(try H.receive(H.frame(.close, []), chunking: chunking) == [.close(code: nil, reason: "")])
    }

    static let violations: [(String, [UInt8], RealtimeError.Code, UInt16)] = [
        ("continuation without start", H.frame(.continuation, [1]), .protocolViolation, 1002),
        ("text inside fragmented text", H.frame(.text, [0x61], fin: false) + H.frame(.text, [0x62]), .protocolViolation, 1002),
        ("binary inside fragmented text", H.frame(.text, [0x61], fin: false) + H.frame(.binary, [0x62]), .protocolViolation, 1002),
        ("invalid UTF-8 text", H.frame(.text, [0x61, 0xFF]), .invalidUTF8, 1007),
        ("truncated UTF-8 at message end", H.frame(.text, [0x61, 0xE2, 0x82]), .invalidUTF8, 1007),
        ("invalid UTF-8 in a fragment", H.frame(.text, [0x61], fin: false) + H.frame(.continuation, [0xED, 0xA0, 0x80]), .invalidUTF8, 1007),
        ("close payload of 1 byte", H.frame(.close, [0x03]), .protocolViolation, 1002),
        ("close reason not UTF-8", H.frame(.close, H.closePayload(1000, [0xC0, 0xAF])), .invalidUTF8, 1007),
    ] + [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535].map { code in
        ("close code \(code)", H.frame(.close, H.closePayload(UInt16(code))), .protocolViolation, 1002)
    }

    @Test(arguments: 0..<violations.count)
    func protocolViolations(index: Int) {
        let (name, bytes, code, closeCode) = Self.violations[index]
        for (chunking, error) in zip(Chunking.all, H.receiveError(bytes)) {
            #expect(error?.code == code, "\(name) \(chunking)")
            #expect(error?.closeCode == closeCode, "\(name) \(chunking)")
        }
    }

    @Test(arguments: Chunking.all)
    func framesAfterCloseAreDiscarded(chunking: Chunking) throws {
        // Autobahn 7.1.3–7.1.5: a ping, a message or a stray fragment after the close frame.
        let wire = H.frame(.text, [0x61], fin: false) + H.frame(.close, H.closePayload(1000))
            + H.frame(.ping, [1]) + H.frame(.text, [0x62]) + H.frame(.continuation, [0x63]) + H.frame(.binary, [0xFF, 0xFF])
        #expect(try H.receive(wire, chunking: chunking) == [.close(code: 1000, reason: "")])
    }

    @Test func validCloseCodes() throws {
        // 1012–1014 (service restart, try again later, bad gateway): IANA-registered.
        for code in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] {
            let out = try H.receive(H.frame(.close, H.closePayload(UInt16(code), Array("é".utf8))), chunking: .whole)
            #expect(out == [.close(code: UInt16(code), reason: "é")])
        }
    }

    @Test(arguments: Chunking.all)
    func messageSizeLimit(chunking: Chunking) {
        let exact = H.frame(.binary, [UInt8](repeating: 7, count: 60), fin: false) + H.frame(.continuation, [UInt8](repeating: 7, count: 40))
        #expect((try? H.receive(exact, chunking: chunking, maxMessageSize: 100)) == [.binary([UInt8](repeating: 7, count: 100))])
        let over = H.frame(.binary, [UInt8](repeating: 7, count: 60), fin: false) + H.frame(.continuation, [UInt8](repeating: 7, count: 41))
        do {
            _ = try H.receive(over, chunking: chunking, maxMessageSize: 100)
            Issue.record("expected messageTooLarge")
        } catch {
            #expect(error.code == .messageTooLarge)
            #expect(error.closeCode == 1009)
        }
    }

    @Test func messageSizeLimitTripsOnTheHeaderBeforeThePayload() {
        var receiver = WebSocketReceiver(role: .client, maxMessageSize: 100)
        let frame = H.frame(.binary, [UInt8](repeating: 7, count: 1000))
        #expect(throws: RealtimeError.self) { _ = try receiver.receive(frame.prefix(4)) }
    }

    @Test func invalidUTF8FailsBeforeTheFrameIsComplete() throws {
        // Autobahn 6.4.x: the invalid sequence arrives, the rest of the frame does not yet.
        var receiver = WebSocketReceiver(role: .client)
        let frame = H.frame(.text, Array("κόσμε".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("edited".utf8))
        #expect(try receiver.receive(frame.prefix(2 + 10)).isEmpty)
        do {
            _ = try receiver.receive(frame[12..<14])
            Issue.record("expected invalidUTF8 before the frame completes")
        } catch {
            #expect(error.code == .invalidUTF8)
            #expect(error.closeCode == 1007)
        }
    }

    @Test func fragmentationViolationFailsOnTheHeader() {
        var receiver = WebSocketReceiver(role: .client)
        let bytes = H.frame(.continuation, [UInt8](repeating: 1, count: 500))
        #expect(throws: RealtimeError.self) { _ = try receiver.receive(bytes.prefix(4)) }
    }

    @Test(arguments: Chunking.all)
    func largeTextInManyFragments(chunking: Chunking) throws {
        let text = Array(String(repeating: "日本語😀abc", count: 300).utf8)
        var wire: [UInt8] = []
        var offset = 0
        var size = 1
        while offset < text.count {
            let end = min(text.count, offset + size)
            wire += H.frame(offset == 0 ? .text : .continuation, Array(text[offset..<end]), fin: end == text.count)
            offset = end
            size = size % 17 + 1
        }
        #expect(try H.receive(wire, chunking: chunking) == [.text(text)])
    }
}

/// A whole text frame in one read becomes a `String` where it lies in the read buffer (no
/// frame, no byte array); everything else takes the frame path, with the same results.
@Suite struct WebSocketWholeTextTests {
    /// Each output of one read of `bytes`.
    static func outputs(_ bytes: [UInt8], maxMessageSize: Int = 1 << 20) throws(RealtimeError) -> [WebSocketMessageAssembler.Output] {
        var receiver = WebSocketReceiver(role: .client, maxMessageSize: maxMessageSize)
        return try receiver.receive(bytes)
    }

    static func isString(_ output: WebSocketMessageAssembler.Output) -> Bool {
        if case .string = output { return true }
        return false
    }

    @Test("7-bit, 16-bit and 64-bit lengths, and an empty message, are read from the buffer")
    func lengths() throws {
        for text in ["", "hello €", String(repeating: "a", count: 300), String(repeating: "b", count: 70_000)] {
            let out = try Self.outputs(WebSocketTestHelpers.frame(.text, Array(text.utf8)))
            #expect(out == [.string(text)])
            #expect(out.allSatisfy(Self.isString), "\(text.utf8.count) bytes took the frame path")
        }
    }

    @Test("two messages and a ping in one read: each message from the buffer, in order")
    func several() throws {
        let wire = WebSocketTestHelpers.frame(.text, Array("one".utf8)) + WebSocketTestHelpers.frame(.ping, [7])
            + WebSocketTestHelpers.frame(.text, Array("two".utf8))
        let out = try Self.outputs(wire)
        #expect(out == [.text(Array("one".utf8)), .ping([7]), .string("two")])
        #expect(Self.isString(out[0]) && Self.isString(out[2]))
    }

    @Test("invalid UTF-8 in a whole frame fails with 1007, and the receiver stays failed")
    func invalid() {
        var receiver = WebSocketReceiver(role: .client)
        #expect(throws: RealtimeError.self) { _ = try receiver.receive(WebSocketTestHelpers.frame(.text, [0x61, 0xC3, 0x28])) }
        do {
            _ = try receiver.receive(WebSocketTestHelpers.frame(.text, [0x61, 0xFF]))
        } catch {
            #expect(error.code == .invalidUTF8)
            #expect(error.closeCode == 1007)
        }
        do {
            _ = try receiver.receive(WebSocketTestHelpers.frame(.text, Array("fine".utf8)))
            Issue.record("a failed receiver took a message")
        } catch {
            #expect(error.code == .invalidUTF8, "the first failure stays")
        }
    }

    @Test("fragments, a frame over the size limit, and a masked frame take the frame path")
    func notWhole() throws {
        let fragmented = WebSocketTestHelpers.frame(.text, Array("ab".utf8), fin: false)
            + WebSocketTestHelpers.frame(.continuation, Array("c".utf8))
        #expect(try Self.outputs(fragmented).map(Self.isString) == [false])
        let big = WebSocketTestHelpers.frame(.text, Array(repeating: 0x61, count: 200))
        do {
            _ = try Self.outputs(big, maxMessageSize: 100)
            Issue.record("a message over maxMessageSize was taken")
        } catch {
            #expect(error.code == .messageTooLarge)
        }
        let masked = WebSocketTestHelpers.frame(.text, Array("x".utf8), key: WebSocketMaskingKey(1, 2, 3, 4))
        #expect(throws: RealtimeError.self) { _ = try Self.outputs(masked) }
    }
}
