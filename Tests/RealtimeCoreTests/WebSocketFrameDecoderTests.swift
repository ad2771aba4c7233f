import Testing
import RealtimeCore
import RealtimeTestSupport

private typealias H = WebSocketTestHelpers

@Suite(.timeLimit(.minutes(1))) struct WebSocketFrameDecoderTests {
    // RFC 6455 §5.7 examples.
    static let helloUnmasked: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
    static let helloMasked: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]

    @Test(arguments: Chunking.all)
    func rfcExampleUnmaskedText(chunking: Chunking) throws {
        let frames = try H.decode(Self.helloUnmasked, chunking: chunking)
        #expect(frames == [WebSocketFrame(fin: true, opcode: .text, payload: Array("Hello".utf8))])
    }

    @Test(arguments: Chunking.all)
    func rfcExampleMaskedTextInServerRole(chunking: Chunking) throws {
        let frames = try H.decode(Self.helloMasked, role: .server, chunking: chunking)
        #expect(frames.count == 1)
        #expect(frames.first?.payload == Array("Hello".utf8))
        #expect(frames.first?.maskingKey == WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D))
    }

    @Test(arguments: Chunking.all)
    func rfcExampleFragmentsAndControl(chunking: Chunking) throws {
        let bytes: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C, 0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x80, 0x02, 0x6C, 0x6F]
        let frames = try H.decode(bytes, chunking: chunking)
        #expect(frames.map(\.opcode) == [.text, .ping, .continuation])
        #expect(frames.map(\.fin) == [false, true, true])
        #expect(frames.map(\.payload) == [Array("Hel".utf8), Array("Hello".utf8), Array("lo".utf8)])
    }

    @Test(arguments: Chunking.all)
    func lengthEncodings(chunking: Chunking) throws {
        var bytes: [UInt8] = []
        let sizes = [0, 1, 125, 126, 127, 65535, 65536, 70000]
        let payloads = sizes.map { n in (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 7) } }
        for p in payloads { bytes += H.frame(.binary, p) }
        // RFC 6455 §5.7: 256 bytes use the 16-bit form, 64 KiB the 64-bit form.
        #expect(H.frame(.binary, [UInt8](repeating: 0, count: 256)).prefix(4) == [0x82, 0x7E, 0x01, 0x00])
        #expect(H.frame(.binary, [UInt8](repeating: 0, count: 65536)).prefix(10) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
        let frames = try H.decode(bytes, chunking: { if case .byteByByte = chunking { return .fixed(997) } else { return chunking } }())
        #expect(frames.map(\.payload) == payloads)
    }

    @Test(arguments: Chunking.all)
    func nonMinimalLengthsAreAccepted(chunking: Chunking) throws {
        // 5 bytes announced with the 16-bit and the 64-bit forms.
        let b16: [UInt8] = [0x82, 0x7E, 0x00, 0x05, 1, 2, 3, 4, 5]
        let b64: [UInt8] = [0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0, 0x05, 1, 2, 3, 4, 5]
        let frames = try H.decode(b16 + b64, chunking: chunking)
        #expect(frames.map(\.payload) == [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]])
    }

    @Test(arguments: Chunking.all)
    func serverRoleUnmasksAcrossChunks(chunking: Chunking) throws {
        let key = WebSocketMaskingKey(0xA1, 0xB2, 0xC3, 0xD4)
        let payload = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
        let wire = H.frame(.binary, payload, key: key) + H.frame(.ping, [9, 8, 7], key: key)
        let frames = try H.decode(wire, role: .server, chunking: chunking)
        #expect(frames.map(\.payload) == [payload, [9, 8, 7]])
    }

    @Test(arguments: Chunking.all)
    func allOpcodesDecode(chunking: Chunking) throws {
        var bytes: [UInt8] = []
        for op in WebSocketOpcode.allCases { bytes += H.frame(op, [1, 2], fin: true) }
        let frames = try H.decode(bytes, chunking: chunking)
        #expect(frames.map(\.opcode) == WebSocketOpcode.allCases)
    }

    static let violations: [(String, [UInt8], WebSocketRole, RealtimeError.Code, UInt16)] = [
        ("masked frame to a client", [0x81, 0x81, 1, 2, 3, 4, 0x41], .client, .protocolViolation, 1002),
        ("unmasked frame to a server", [0x81, 0x01, 0x41], .server, .protocolViolation, 1002),
        ("RSV1 without extension", [0xC1, 0x01, 0x41], .client, .protocolViolation, 1002),
        ("RSV2", [0xA1, 0x01, 0x41], .client, .protocolViolation, 1002),
        ("RSV3", [0x91, 0x01, 0x41], .client, .protocolViolation, 1002),
        ("opcode 3", [0x83, 0x00], .client, .protocolViolation, 1002),
        ("opcode 7", [0x87, 0x00], .client, .protocolViolation, 1002),
        ("opcode 0xB", [0x8B, 0x00], .client, .protocolViolation, 1002),
        ("opcode 0xF", [0x8F, 0x00], .client, .protocolViolation, 1002),
        ("fragmented ping", [0x09, 0x00], .client, .protocolViolation, 1002),
        ("fragmented close", [0x08, 0x00], .client, .protocolViolation, 1002),
        ("ping of 126 bytes", [0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0, count: 126), .client, .protocolViolation, 1002),
        ("64-bit length with MSB", [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1], .client, .protocolViolation, 1002),
    ]

    @Test(arguments: 0..<violations.count)
    func framingViolations(index: Int) {
        let (name, bytes, role, code, closeCode) = Self.violations[index]
        for chunking in Chunking.all {
            #expect(throws: RealtimeError.self, "\(name) \(chunking)") {
                _ = try H.decode(bytes, role: role, chunking: chunking)
            }
            do {
                _ = try H.decode(bytes, role: role, chunking: chunking)
            } catch {
                #expect(error.code == code, "\(name)")
                #expect(error.closeCode == closeCode, "\(name)")
            }
        }
    }

    @Test func failsOnTheFirstBadHeaderByteBeforeTheRest() {
        // A masked frame header announcing 16 MiB: the client fails after 2 bytes.
        var decoder = WebSocketFrameDecoder(role: .client)
        #expect(throws: RealtimeError.self) { _ = try decoder.decode([0x82, 0xFF]) }
        // And stays failed.
        #expect(throws: RealtimeError.self) { _ = try decoder.decode(Self.helloUnmasked) }
    }

    @Test(arguments: Chunking.all)
    func frameTooLarge(chunking: Chunking) {
        let bytes = H.frame(.binary, [UInt8](repeating: 1, count: 101))
        do {
            _ = try H.decode(bytes, chunking: chunking, maxFrameSize: 100)
            Issue.record("expected frameTooLarge")
        } catch {
            #expect(error.code == .frameTooLarge)
            #expect(error.closeCode == 1009)
        }
        #expect((try? H.decode(H.frame(.binary, [UInt8](repeating: 1, count: 100)), chunking: chunking, maxFrameSize: 100))?.count == 1)
    }

    @Test func frameTooLargeIsReportedFromTheHeaderAlone() {
        var decoder = WebSocketFrameDecoder(role: .client, maxFrameSize: 1024)
        // 64-bit length of 1 GiB, no payload sent.
        #expect(throws: RealtimeError.self) { _ = try decoder.decode([0x82, 0x7F, 0, 0, 0, 0, 0x40, 0, 0, 0]) }
    }

    @Test(arguments: Chunking.all)
    func negotiatedRSV1IsAllowed(chunking: Chunking) throws {
        let frames = try H.decode([0xC1, 0x01, 0x41], chunking: chunking, reservedBits: 0x40)
        #expect(frames.first?.rsv1 == true)
    }

    /// RFC 7692 §6.1: RSV1 marks the first frame of a compressed message only; on a control
    /// frame or a continuation frame it fails the connection with 1002 even when negotiated.
    @Test(arguments: [
        [0xC9, 0x00] as [UInt8],          // ping with RSV1
        [0xCA, 0x00],                      // pong with RSV1
        [0xC8, 0x02, 0x03, 0xE8],          // close with RSV1
        [0x41, 0x01, 0x41, 0xC0, 0x01, 0x42],  // compressed start, continuation with RSV1
    ])
    func negotiatedRSV1IsRejectedOnControlAndContinuationFrames(bytes: [UInt8]) {
        var decoder = WebSocketFrameDecoder(role: .client, allowedReservedBits: 0x40)
        do {
            _ = try decoder.decode(bytes)
            Issue.record("expected a protocol violation")
        } catch {
            #expect(error.code == .protocolViolation)
            #expect(error.closeCode == 1002)
        }
    }

    @Test func rsv1WithoutNegotiationIsAProtocolViolation() {
        var decoder = WebSocketFrameDecoder(role: .client)
        #expect(throws: RealtimeError.self) { _ = try decoder.decode([0xC1, 0x01, 0x41]) }
    }

    @Test func partialFrameIsExposed() throws {
        var decoder = WebSocketFrameDecoder(role: .client)
        let frame = H.frame(.text, Array("abcdef".utf8))
        #expect(try decoder.decode(frame.prefix(5)).isEmpty)
        #expect(decoder.partialFrame?.received == 3)
        #expect(decoder.partialFrame?.header.payloadLength == 6)
        let seen = decoder.withPartialPayload { _, bytes in Array(bytes) }
        #expect(seen == Array("abc".utf8))
        #expect(try decoder.decode(frame.dropFirst(5)).first?.payload == Array("abcdef".utf8))
        #expect(decoder.partialFrame == nil)
    }
}
