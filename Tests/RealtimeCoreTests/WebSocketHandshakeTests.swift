#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import RealtimeCore
import RealtimeTestSupport

@Suite(.timeLimit(.minutes(1))) struct WebSocketHandshakeTests {
    static let sha1 = WebSocketTestSHA1.hash

    static func make(
        _ url: String = "ws://example.com:8080/chat?room=1", subprotocols: [String] = [],
        extensions: [WebSocketExtension] = [], deflate: WebSocketDeflateOptions? = nil,
        headers: HTTPHeaders = HTTPHeaders()
    ) throws -> WebSocketHandshake {
        var rng = SeededGenerator(seed: 1)
        return try WebSocketHandshake(
            url: URL(string: url)!, subprotocols: subprotocols, extensions: extensions, deflate: deflate,
            headers: headers, generator: &rng)
    }

    static func response(_ handshake: WebSocketHandshake, extra: [String] = [], accept: String? = nil) -> [UInt8] {
        let acceptValue = accept ?? WebSocketHandshake.acceptValue(forKey: handshake.key, sha1: sha1)
        let lines = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
                     "Sec-WebSocket-Accept: \(acceptValue)"] + extra
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    static func outcome(_ handshake: WebSocketHandshake, _ bytes: [UInt8], chunking: Chunking = .whole) throws(RealtimeError) -> WebSocketHandshake.Outcome? {
        var h = handshake
        for chunk in chunking.split(bytes) {
            if let o = try h.receive(chunk, sha1: sha1) { return o }
        }
        return nil
    }

    @Test func rfcAcceptExample() {
        // RFC 6455 §1.3.
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==", sha1: Self.sha1) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func goldenRequestWithSeededGenerator() throws {
        let h = try Self.make(
            subprotocols: ["chat", "superchat"], deflate: WebSocketDeflateOptions(),
            headers: ["Authorization": "Bearer secret", "X-Trace": "1", "Upgrade": "h2c", "Host": "evil"])
        #expect(h.key == "wVwCiewtCpFn7I5loY3rvg==")
        let expected = """
            GET /chat?room=1 HTTP/1.1\r
            Host: example.com:8080\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: wVwCiewtCpFn7I5loY3rvg==\r
            Sec-WebSocket-Version: 13\r
            Sec-WebSocket-Protocol: chat, superchat\r
            Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r
            Authorization: Bearer secret\r
            X-Trace: 1\r
            \r

            """
        #expect(String(decoding: h.request, as: UTF8.self) == expected)
    }

    /// The key is drawn through a copy of the generator (see the initialiser): the caller's
    /// generator must still advance by exactly the two words the key used, so successive
    /// handshakes get different keys.
    @Test func theCallersGeneratorAdvances() throws {
        var rng = SeededGenerator(seed: 1)
        var reference = rng
        let url = URL(string: "ws://example.com/")!
        let first = try WebSocketHandshake(url: url, generator: &rng)
        let second = try WebSocketHandshake(url: url, generator: &rng)
        #expect(first.key == "wVwCiewtCpFn7I5loY3rvg==")
        #expect(second.key != first.key)
        for _ in 0..<4 { _ = reference.next() }
        #expect(rng.next() == reference.next())
    }

    @Test func redactedDescriptionHidesCredentials() throws {
        let h = try Self.make(headers: ["Authorization": "Bearer secret", "Cookie": "sid=abc", "X-Trace": "1"])
        let text = h.redactedRequestDescription
        #expect(!text.contains("secret"))
        #expect(!text.contains("sid=abc"))
        #expect(text.contains("Authorization: <redacted>"))
        #expect(text.contains("X-Trace: 1"))
        #expect(text.hasPrefix("GET /chat?room=1 HTTP/1.1\nHost: example.com:8080"))
    }

    @Test func hostAndTargetForms() throws {
        func requestLines(_ url: String) throws -> [String] {
            String(decoding: try Self.make(url).request, as: UTF8.self).components(separatedBy: "\r\n")
        }
        #expect(try requestLines("wss://example.com").prefix(2) == ["GET / HTTP/1.1", "Host: example.com"])
        #expect(try requestLines("ws://example.com:80/a%20b").prefix(2) == ["GET /a%20b HTTP/1.1", "Host: example.com"])
        #expect(try requestLines("wss://example.com:443/").prefix(2) == ["GET / HTTP/1.1", "Host: example.com"])
        #expect(try requestLines("ws://[::1]:9001/x#frag").prefix(2) == ["GET /x HTTP/1.1", "Host: [::1]:9001"])
    }

    @Test func badConfigurationsThrow() {
        #expect(throws: RealtimeError.self) { _ = try Self.make("ftp://example.com/") }
        #expect(throws: RealtimeError.self) { _ = try Self.make(headers: ["X-Bad": "a\r\nInjected: 1"]) }
        #expect(throws: RealtimeError.self) { _ = try Self.make(headers: ["Bad Name": "x"]) }
        #expect(throws: RealtimeError.self) { _ = try Self.make(subprotocols: ["a b"]) }
        var deflate = WebSocketDeflateOptions()
        deflate.serverMaxWindowBits = 16
        #expect(throws: RealtimeError.self) { _ = try Self.make(deflate: deflate) }
    }

    @Test(arguments: Chunking.all)
    func upgradeWithLeftoverFrames(chunking: Chunking) throws {
        let h = try Self.make(subprotocols: ["chat"])
        let frame: [UInt8] = [0x81, 0x02, 0x68, 0x69]
        let bytes = Self.response(h, extra: ["Sec-WebSocket-Protocol: chat"]) + frame
        guard case .upgraded(let up)? = try Self.outcome(h, bytes, chunking: chunking) else {
            Issue.record("expected upgrade"); return
        }
        #expect(up.subprotocol == "chat")
        #expect(up.head.status == 101)
        // Whatever followed the head in the chunk that completed it; the rest arrives later.
        #expect(frame.starts(with: up.leftover))
        if case .whole = chunking { #expect(up.leftover == frame) }
    }

    @Test func headerChecksAreCaseInsensitiveTokenLists() throws {
        let h = try Self.make()
        let lines = ["HTTP/1.1 101 Switching Protocols", "upgrade: WebSocket", "connection: keep-alive, UPGRADE",
                     "sec-websocket-accept: \(WebSocketHandshake.acceptValue(forKey: h.key, sha1: Self.sha1))"]
        let bytes = Array((lines.joined(separator: "\n") + "\n\n").utf8)  // bare LF tolerated
        guard case .upgraded(let up)? = try Self.outcome(h, bytes) else { Issue.record("expected upgrade"); return }
        #expect(up.subprotocol == nil)
        #expect(up.extensions.isEmpty)
    }

    static let invalid101: [(String, [String], String?)] = [
        ("wrong accept", [], "AAAAAAAAAAAAAAAAAAAAAAAAAAA="),
        ("unoffered subprotocol", ["Sec-WebSocket-Protocol: other"], nil),
        ("unoffered extension", ["Sec-WebSocket-Extensions: x-custom"], nil),
        ("unoffered deflate", ["Sec-WebSocket-Extensions: permessage-deflate"], nil),
    ]

    @Test(arguments: 0..<invalid101.count)
    func invalidUpgradesAreHandshakeErrors(index: Int) throws {
        let (name, extra, accept) = Self.invalid101[index]
        let h = try Self.make()
        do {
            _ = try Self.outcome(h, Self.response(h, extra: extra, accept: accept))
            Issue.record("\(name) should fail")
        } catch {
            #expect(error.code == .handshake, "\(name)")
        }
    }

    @Test func missingUpgradeOrConnectionFails() throws {
        let h = try Self.make()
        let accept = WebSocketHandshake.acceptValue(forKey: h.key, sha1: Self.sha1)
        for lines in [["HTTP/1.1 101 OK", "Connection: Upgrade", "Sec-WebSocket-Accept: \(accept)"],
                      ["HTTP/1.1 101 OK", "Upgrade: websocket", "Connection: close", "Sec-WebSocket-Accept: \(accept)"],
                      ["HTTP/1.1 101 OK", "Upgrade: h2c", "Connection: Upgrade", "Sec-WebSocket-Accept: \(accept)"],
                      ["HTTP/1.1 101 OK", "Upgrade: websocket", "Connection: Upgrade"]] {
            #expect(throws: RealtimeError.self) { _ = try Self.outcome(h, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)) }
        }
    }

    @Test func subprotocolOfferedAndChosen() throws {
        let h = try Self.make(subprotocols: ["a", "b"])
        guard case .upgraded(let up)? = try Self.outcome(h, Self.response(h, extra: ["Sec-WebSocket-Protocol: b"])) else {
            Issue.record("expected upgrade"); return
        }
        #expect(up.subprotocol == "b")
        #expect(throws: RealtimeError.self) { _ = try Self.outcome(h, Self.response(h, extra: ["Sec-WebSocket-Protocol: a, b"])) }
    }

    @Test func customExtensionAccepted() throws {
        let h = try Self.make(extensions: [WebSocketExtension(name: "x-custom", parameters: [.init(name: "level", value: "2")])])
        #expect(String(decoding: h.request, as: UTF8.self).contains("Sec-WebSocket-Extensions: x-custom; level=2\r\n"))
        guard case .upgraded(let up)? = try Self.outcome(h, Self.response(h, extra: ["Sec-WebSocket-Extensions: x-custom; level=\"2\""])) else {
            Issue.record("expected upgrade"); return
        }
        #expect(up.extensions == [WebSocketExtension(name: "x-custom", parameters: [.init(name: "level", value: "2")])])
        #expect(up.reservedBits == 0)
        #expect(throws: RealtimeError.self) {
            _ = try Self.outcome(h, Self.response(h, extra: ["Sec-WebSocket-Extensions: x-custom, x-custom"]))
        }
    }

    @Test func redirectIsResolvedAndMappedToWebSocketSchemes() throws {
        let h = try Self.make("ws://example.com/a")
        let r1 = Array("HTTP/1.1 302 Found\r\nLocation: /b?x=1\r\nContent-Length: 0\r\n\r\n".utf8)
        guard case .redirect(let u1, _)? = try Self.outcome(h, r1) else { Issue.record("expected redirect"); return }
        #expect(u1.absoluteString == "ws://example.com/b?x=1")
        let r2 = Array("HTTP/1.1 301 Moved\r\nLocation: https://other.example/c\r\n\r\n".utf8)
        guard case .redirect(let u2, _)? = try Self.outcome(h, r2) else { Issue.record("expected redirect"); return }
        #expect(u2.absoluteString == "wss://other.example/c")
        let r3 = Array("HTTP/1.1 307 Temporary\r\n\r\n".utf8)
        do { _ = try Self.outcome(h, r3); Issue.record("expected error") } catch { #expect(error.code == .redirect) }
    }

    @Test(arguments: Chunking.all)
    func refusalCarriesStatusBodyFramingAndExcerpt(chunking: Chunking) throws {
        let h = try Self.make()
        let body = String(repeating: "x", count: 600)
        let bytes = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 600\r\nContent-Type: text/plain\r\n\r\n\(body)".utf8)
        guard case .refused(let head, let rest)? = try Self.outcome(h, bytes, chunking: chunking) else {
            Issue.record("expected refusal"); return
        }
        #expect(head.status == 403)
        #expect(head.bodyFraming == .contentLength(600))
        #expect(Array(body.utf8).starts(with: rest))
        let error = WebSocketHandshake.refusalError(head, body: Array(body.utf8))
        #expect(error.code == .handshake)
        #expect(error.status == 403)
        #expect(error.bodyExcerpt?.count == RealtimeError.maxBodyExcerpt)
        #expect(!error.description.contains("xxxx"))
    }

    @Test func refusalKeepsRetryAfterAsSecondsOrDateAndIgnoresGarbage() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func retryAfter(_ value: String) -> Duration? {
            WebSocketHandshake.refusalError(HTTPResponseHead(status: 503, headers: ["Retry-After": value]), body: [], now: now).retryAfter
        }
        #expect(retryAfter("7") == .seconds(7))
        // 1_700_000_030 is Tue, 14 Nov 2023 22:13:50 GMT: 30 s after `now`.
        #expect(retryAfter("Tue, 14 Nov 2023 22:13:50 GMT") == .seconds(30))
        #expect(retryAfter("soon") == nil)
        #expect(WebSocketHandshake.refusalError(HTTPResponseHead(status: 503), body: []).retryAfter == nil)
    }

    @Test func bodyFramingForms() {
        #expect(HTTPResponseHead(status: 500, headers: ["Transfer-Encoding": "chunked"]).bodyFraming == .chunked)
        #expect(HTTPResponseHead(status: 500).bodyFraming == .untilClose)
        #expect(HTTPResponseHead(status: 304).bodyFraming == HTTPResponseHead.BodyFraming.none)
    }

    /// OWS is spaces and tabs as bytes: a space followed by a combining mark is one
    /// `Character`, but the space is still trimmed (so a head read back is the head written).
    @Test func headerValuesTrimSpacesBeforeCombiningMarks() throws {
        var parser = HTTPResponseHeadParser()
        let head = try #require(try parser.parse(Array("HTTP/1.1 200 OK\r\nX-A: \u{0301}b \t\r\nX-B:\t\u{07FD}\r\n\r\n".utf8))).head
        #expect(head.headers["X-A"] == "\u{0301}b")
        #expect(head.headers["X-B"] == "\u{07FD}")
    }

    @Test func oversizedOrMalformedHeadsFail() throws {
        var parser = HTTPResponseHeadParser(maxSize: 64)
        #expect(throws: RealtimeError.self) { _ = try parser.parse(Array("HTTP/1.1 101 OK\r\nX: \(String(repeating: "a", count: 100))".utf8)) }
        var p2 = HTTPResponseHeadParser()
        #expect(throws: RealtimeError.self) { _ = try p2.parse(Array("HTTP/1.1 101 OK\r\nX: a\r\n folded\r\n\r\n".utf8)) }
        var p3 = HTTPResponseHeadParser()
        #expect(throws: RealtimeError.self) { _ = try p3.parse(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)) }
    }

    // MARK: permessage-deflate (RFC 7692 §7.1)

    static func negotiate(_ offer: WebSocketDeflateOptions, _ response: String) throws(RealtimeError) -> WebSocketDeflateParameters {
        try offer.negotiate(WebSocketExtension.parse(response)[0])
    }

    @Test func deflateOfferStrings() {
        var o = WebSocketDeflateOptions()
        #expect(o.offer.description == "permessage-deflate; client_max_window_bits")
        o.serverNoContextTakeover = true
        o.clientNoContextTakeover = true
        o.serverMaxWindowBits = 10
        o.clientMaxWindowBits = .bits(12)
        #expect(o.offer.description == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=12")
        o.clientMaxWindowBits = .notOffered
        o.serverMaxWindowBits = nil
        #expect(o.offer.description == "permessage-deflate; server_no_context_takeover; client_no_context_takeover")
    }

    @Test func deflateNegotiationAccepts() throws {
        let plain = WebSocketDeflateOptions()
        #expect(try Self.negotiate(plain, "permessage-deflate") == WebSocketDeflateParameters())
        let p = try Self.negotiate(plain, "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=9; client_max_window_bits=\"10\"")
        #expect(p.serverNoContextTakeover && p.clientNoContextTakeover)
        #expect(p.serverMaxWindowBits == 9 && p.clientMaxWindowBits == 10)
        var o = WebSocketDeflateOptions()
        o.serverMaxWindowBits = 12
        o.clientMaxWindowBits = .bits(11)
        let q = try Self.negotiate(o, "permessage-deflate; server_max_window_bits=12")
        #expect(q.serverMaxWindowBits == 12 && q.clientMaxWindowBits == 11)
    }

    @Test(arguments: [
        "permessage-deflate; unknown_param",
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; server_no_context_takeover=1",
        "permessage-deflate; client_no_context_takeover=x",
        "permessage-deflate; server_max_window_bits=7",
        "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; server_max_window_bits=010",
        "permessage-deflate; server_max_window_bits",
        "permessage-deflate; client_max_window_bits",
        "permessage-deflate; client_max_window_bits=abc",
    ])
    func deflateNegotiationRejects(response: String) {
        #expect(throws: RealtimeError.self) { _ = try Self.negotiate(WebSocketDeflateOptions(), response) }
    }

    @Test func deflateNegotiationRejectsAgainstOfferLimits() {
        var noClientBits = WebSocketDeflateOptions()
        noClientBits.clientMaxWindowBits = .notOffered
        #expect(throws: RealtimeError.self) { _ = try Self.negotiate(noClientBits, "permessage-deflate; client_max_window_bits=15") }
        var serverLimit = WebSocketDeflateOptions()
        serverLimit.serverMaxWindowBits = 10
        #expect(throws: RealtimeError.self) { _ = try Self.negotiate(serverLimit, "permessage-deflate; server_max_window_bits=11") }
        #expect(throws: RealtimeError.self) { _ = try Self.negotiate(serverLimit, "permessage-deflate") }
        var noTakeover = WebSocketDeflateOptions()
        noTakeover.serverNoContextTakeover = true
        #expect(throws: RealtimeError.self) { _ = try Self.negotiate(noTakeover, "permessage-deflate") }
        var clientLimit = WebSocketDeflateOptions()
        clientLimit.clientMaxWindowBits = .bits(10)
        #expect(throws: RealtimeError.self) { _ = try Self.negotiate(clientLimit, "permessage-deflate; client_max_window_bits=12") }
    }

    /// A permessage-deflate answer to a handshake that did not offer it fails the handshake
    /// (RFC 6455 §9.1, RFC 7692 §5).
    @Test func deflateNotOfferedButAcceptedFails() throws {
        let h = try Self.make()
        do {
            _ = try Self.outcome(h, Self.response(h, extra: ["Sec-WebSocket-Extensions: permessage-deflate"]))
            Issue.record("expected a handshake error")
        } catch {
            #expect(error.code == .handshake)
        }
    }

    /// Client and compressor windows are 9–15 (zlib cannot deflate raw data with 8), server
    /// windows 8–15, levels 0–9, memory levels 1–9.
    @Test func deflateOptionsValidation() throws {
        var o = WebSocketDeflateOptions()
        o.clientMaxWindowBits = .bits(8)
        #expect(throws: RealtimeError.self) { try o.validate() }
        #expect(throws: RealtimeError.self) { _ = try Self.make(deflate: o) }
        o.clientMaxWindowBits = .bits(9)
        o.serverMaxWindowBits = 8
        try o.validate()
        #expect(o.offer.description == "permessage-deflate; server_max_window_bits=8; client_max_window_bits=9")
        o.compressionLevel = 10
        #expect(throws: RealtimeError.self) { try o.validate() }
        o.compressionLevel = 6
        for bits in [8, 16] {
            o.compressionWindowBits = bits
            #expect(throws: RealtimeError.self) { try o.validate() }
        }
        o.compressionWindowBits = 9
        for level in [0, 10] {
            o.compressionMemoryLevel = level
            #expect(throws: RealtimeError.self) { try o.validate() }
        }
        o.compressionMemoryLevel = 1
        try o.validate()
        // Local choices: never part of the offer.
        #expect(o.offer.description == "permessage-deflate; server_max_window_bits=8; client_max_window_bits=9")
    }

    /// Our compressor takes our window unless the agreed one is smaller, our memory level,
    /// and resets when either side said so; an agreed 8-bit window means no compression.
    @Test func compressorFollowsTheAgreementAndOurLimits() {
        let o = WebSocketDeflateOptions()
        var agreed = WebSocketDeflateParameters()
        #expect(o.compressor(for: agreed) == .init(windowBits: 13, memoryLevel: 4, level: 6, noContextTakeover: false))
        agreed.clientMaxWindowBits = 10
        agreed.clientNoContextTakeover = true
        #expect(o.compressor(for: agreed) == .init(windowBits: 10, memoryLevel: 4, level: 6, noContextTakeover: true))
        agreed.clientMaxWindowBits = 8
        #expect(o.compressor(for: agreed) == nil)
        var mine = WebSocketDeflateOptions()
        mine.compressionWindowBits = 15
        mine.compressionMemoryLevel = 8
        mine.clientNoContextTakeover = true
        #expect(mine.compressor(for: WebSocketDeflateParameters()) == .init(windowBits: 15, memoryLevel: 8, level: 6, noContextTakeover: true))
    }

    @Test func deflateAcceptedInHandshakeSetsRSV1() throws {
        let h = try Self.make(deflate: WebSocketDeflateOptions())
        guard case .upgraded(let up)? = try Self.outcome(h, Self.response(h, extra: ["Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover"])) else {
            Issue.record("expected upgrade"); return
        }
        #expect(up.deflate?.serverNoContextTakeover == true)
        #expect(up.reservedBits == 0x40)
    }

    @Test func extensionHeaderParsing() throws {
        let list = try WebSocketExtension.parse("a; x=1; y, b;z=\"q\" , c")
        #expect(list.map(\.name) == ["a", "b", "c"])
        #expect(list[0].parameters == [.init(name: "x", value: "1"), .init(name: "y")])
        #expect(list[1].parameters == [.init(name: "z", value: "q")])
        #expect(throws: RealtimeError.self) { _ = try WebSocketExtension.parse("a; x=\"unterminated") }
        #expect(throws: RealtimeError.self) { _ = try WebSocketExtension.parse("a b") }
        #expect(try WebSocketExtension.parse("").isEmpty)
    }
}
