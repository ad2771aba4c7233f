import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import RealtimeWebSocket

/// permessage-deflate (RFC 7692) against third-party servers: Python `websockets` (which
/// answers our default offer with 12-bit windows both ways) and `aiohttp` (15-bit windows).
@Suite(.serialized, .timeLimit(.minutes(3))) struct WebSocketCompressionPeerTests {
    static let peers = ["ws_websockets.py", "ws_aiohttp.py"]

    /// JSON-like text that compresses well and repeats across messages (context takeover).
    static func record(_ i: Int) -> String {
        #"{"id":\#(i),"symbol":"EURUSD","bid":1.0\#(i % 97),"ask":1.0\#(i % 89),"venue":"loopback","note":"\#(String(repeating: "x", count: i % 50))"}"#
    }

    @Test(arguments: peers) func negotiatesAndEchoesCompressedMessages(peer script: String) async throws {
        let peer = try await PythonPeer.start(script: script)
        try await withDeadline(60) {
            let probe = TransportProbe(peer.url("/echo"))
            let info = try #require(await probe.opened())
            #expect(info.extensions.contains { $0.hasPrefix("permessage-deflate") })
            for i in 0..<200 {
                try await probe.transport.send(.text(Self.record(i)))
            }
            for i in 0..<200 {
                #expect(await probe.message()?.text == Self.record(i))
            }
            // A large binary message with long-distance repeats, and an empty one.
            var generator = SeededGenerator(seed: 7692)
            let block = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let large = Array((0..<256).map { _ in block }.joined())
            try await probe.transport.send(.binary(large))
            try await probe.transport.send(.binary([]))
            #expect(await probe.message()?.content == .binary(large))
            #expect(await probe.message()?.content == .binary([]))
            probe.transport.close(code: 1000, reason: "")
            let (end, _) = await probe.ended()
            #expect(end?.clean == true)
        }
    }

    /// RFC 7692 §7.1.1: a server may answer with `server_no_context_takeover` (it resets its
    /// compressor per message) or `client_no_context_takeover` (we must reset ours) even when
    /// the offer did not ask. With the second, a client that kept its LZ77 window would send
    /// back-references the server can no longer resolve, and the echoes would fail.
    @Test(arguments: ["server-no-context-takeover", "client-no-context-takeover"])
    func noContextTakeoverAnswersAreHonoured(mode: String) async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py", arguments: ["--deflate", mode])
        try await withDeadline(60) {
            let probe = TransportProbe(peer.url("/echo"))
            let info = try #require(await probe.opened())
            let negotiated = try #require(info.extensions.first { $0.hasPrefix("permessage-deflate") })
            #expect(negotiated.contains(mode.replacingOccurrences(of: "-", with: "_")), "\(negotiated)")
            // The same record again and again: with context takeover most of each message
            // would be a back-reference into the previous one.
            for i in 0..<100 {
                try await probe.transport.send(.text(Self.record(7)))
                #expect(await probe.message()?.text == Self.record(7), "message \(i)")
            }
            for i in 0..<100 {
                try await probe.transport.send(.text(Self.record(i)))
            }
            for i in 0..<100 {
                #expect(await probe.message()?.text == Self.record(i))
            }
            probe.transport.close(code: 1000, reason: "")
            let (end, _) = await probe.ended()
            #expect(end?.clean == true)
        }
    }

    @Test(arguments: peers) func disabledOffersNothing(peer script: String) async throws {
        let peer = try await PythonPeer.start(script: script)
        try await withDeadline {
            var options = TransportProbe.quietOptions
            options.compression = .disabled
            let probe = TransportProbe(peer.url("/echo"), options: options)
            let info = try #require(await probe.opened())
            #expect(info.extensions.isEmpty)
            try await probe.transport.send(.text(Self.record(1)))
            #expect(await probe.message()?.text == Self.record(1))
            probe.transport.close(code: 1000, reason: "")
            _ = await probe.ended()
        }
    }

    /// A decompression bomb from a real server: 8 MiB of repetitive text arrives as a few KiB
    /// on the wire; with a 1 MiB limit the client stops inflating and closes with 1009.
    @Test func compressedMessageOverTheLimitFailsWith1009() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline(60) {
            var options = TransportProbe.quietOptions
            options.maxMessageSize = 1 << 20
            let probe = TransportProbe(peer.url("/large?size=8388608&type=text"), options: options)
            let info = try #require(await probe.opened())
            #expect(info.extensions.contains { $0.hasPrefix("permessage-deflate") })
            let (end, messages) = await probe.ended()
            #expect(messages.isEmpty)
            #expect(end?.error?.code == .messageTooLarge)
            #expect(end?.error?.closeCode == 1009 && end?.code == 1006, "1009 is ours; the server sent no close frame")
        }
    }

    /// With the limit above the message size, the same message arrives whole.
    @Test func largeCompressedMessageWithinTheLimitArrives() async throws {
        let peer = try await PythonPeer.start(script: "ws_websockets.py")
        try await withDeadline(60) {
            let probe = TransportProbe(peer.url("/large?size=8388608&type=text"))
            #expect(await probe.opened() != nil)
            let message = try #require(await probe.message())
            #expect(message.text?.utf8.count == 8 << 20)
            #expect(message.text?.hasPrefix("abcdefghijklmnopqrstuvwxyz0123456789abc") == true)
            probe.transport.close(code: 1000, reason: "")
            _ = await probe.ended()
        }
    }
}
