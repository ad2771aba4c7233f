#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// permessage-deflate (RFC 7692) through a `RealtimeClient` on a `ws://` URL: the offer, the
/// server's response, messages inflated as they arrive and deflated as they leave.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientWebSocketCompressionTests {
    /// A client offering the default compression, its recorder and its first attempt's server.
    static func offering() async throws -> (EmbeddedClient, EventRecorder, EmbeddedWebSocketServer) {
        let t = try EmbeddedClient("ws://peer.test/ws") { $0.webSocket.compression = .default }
        let rec = EventRecorder(t.client)
        return (t, rec, try await t.webSocketAttempt(1))
    }

    /// The client's frames since the last read: (RSV1 set, payload length) each, masked
    /// payloads of up to 125 bytes.
    static func frames(_ server: EmbeddedWebSocketServer) -> [(compressed: Bool, length: Int)] {
        var bytes = server.stream.takeWritten()[...]
        var frames: [(Bool, Int)] = []
        while bytes.count >= 6 {
            let length = Int(bytes[bytes.startIndex + 1] & 0x7F)
            frames.append((bytes.first! & 0x40 != 0, length))
            bytes = bytes.dropFirst(6 + length)
        }
        return frames
    }

    /// The default offer is `permessage-deflate; client_max_window_bits`; `.disabled`
    /// offers nothing.
    @Test func theOfferIsInTheUpgradeUnlessDisabled() async throws {
        let (t, _, server) = try await Self.offering()
        server.accept()
        #expect(server.upgradeRequest?.contains("\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n") == true)
        t.client.close()
        let (plain, _, other) = try await EmbeddedClientWebSocketFrameTests.opened()
        #expect(other.upgradeRequest?.lowercased().contains("sec-websocket-extensions") == false)
        plain.client.close()
    }

    /// Compressed messages are inflated, with the context kept across messages, fragmented or
    /// not, and an uncompressed message still accepted (RFC 7692 §7.2.3's examples).
    @Test func compressedMessagesAreInflatedWithContextTakeover() async throws {
        let (t, rec, server) = try await Self.offering()
        defer { t.client.close() }
        server.accept(extensions: "permessage-deflate")
        server.feed([0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        server.feed([0xC1, 0x05, 0xF2, 0x00, 0x11, 0x00, 0x00])
        server.feed([0x41, 0x03, 0xF2, 0x48, 0xCD])
        server.feed([0x80, 0x04, 0xC9, 0xC9, 0x07, 0x00])
        server.sendText("plain")
        await rec.waitFor(5)
        #expect(rec.summary == "open(1) event(Hello) event(Hello) event(Hello) event(plain)")
    }

    /// Sent messages are deflated (RSV1 set); with context takeover a repeated message
    /// shrinks, and a server's `client_no_context_takeover` (which RFC 7692 §7.1.1.2 lets it
    /// add unasked) resets the compressor for each message.
    @Test(arguments: [("permessage-deflate", true), ("permessage-deflate; client_no_context_takeover", false)])
    func sentMessagesAreDeflated(extensions: String, shrinks: Bool) async throws {
        let (t, rec, server) = try await Self.offering()
        defer { t.client.close() }
        server.accept(extensions: extensions)
        await rec.waitFor(1)
        #expect(rec.summary == "open(1)")
        try await t.client.send(.text("Hello, Hello, Hello"))
        try await t.client.send(.text("Hello, Hello, Hello"))
        t.run()
        let frames = Self.frames(server)
        #expect(frames.count == 2 && frames.allSatisfy(\.compressed), "\(frames)")
        #expect(frames.first.map { $0.length < 19 } == true, "deflated: \(frames)")
        #expect((frames.last!.length < frames.first!.length) == shrinks, "\(frames)")
    }

    /// Compressed data that does not inflate closes the connection with 1007.
    @Test func invalidCompressedDataClosesWith1007() async throws {
        let (t, rec, server) = try await Self.offering()
        defer { t.client.close() }
        server.accept(extensions: "permessage-deflate")
        server.answersClose = false
        server.feed([0xC1, 0x02, 0xFF, 0xFF])
        await rec.waitFor("the error") { $0.errorEvent != nil }
        let error = try #require(rec.events.compactMap(\.errorEvent).first)
        #expect(error.error.closeCode == 1007, "\(error.error)")
        #expect(server.closeFrame?.code == 1007)
    }

    /// Without permessage-deflate agreed, a compressed (RSV1) frame is a protocol violation:
    /// the client closes with 1002 and delivers nothing (RFC 6455 §5.2).
    @Test func aCompressedFrameWithoutTheExtensionIsAProtocolViolation() async throws {
        let (t, rec, server) = try await Self.offering()
        defer { t.client.close() }
        server.accept()
        server.answersClose = false
        server.feed([0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        await rec.waitFor("the error") { $0.errorEvent != nil }
        #expect(rec.summary.hasPrefix("open(1) error(protocol_violation,"), "\(rec.summary)")
        #expect(server.closeFrame?.code == 1002)
    }

    /// A response whose permessage-deflate parameters were not offered or are out of range
    /// fails the handshake, not retried.
    @Test(arguments: [
        "permessage-deflate; x_unknown=1", "permessage-deflate; client_max_window_bits=16",
        "permessage-deflate; client_max_window_bits=7", "permessage-deflate, permessage-deflate",
    ])
    func aBadExtensionResponseIsAHandshakeError(extensions: String) async throws {
        let (t, rec, server) = try await Self.offering()
        server.accept(extensions: extensions)
        await rec.waitUntilFinished()
        let error = try #require(rec.events.compactMap(\.errorEvent).first, "\(rec.summary)")
        #expect(error.error.code == .handshake && !error.willRetry, "\(error)")
        #expect(t.connectionCount == 1)
    }
}
#endif
