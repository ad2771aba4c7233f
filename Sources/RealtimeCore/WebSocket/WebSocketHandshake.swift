#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The client side of the opening handshake (RFC 6455 §4.1, §4.2.2), without I/O.
///
/// 1. Create it with the URL and options; a 16-byte `Sec-WebSocket-Key` is drawn from the
///    injected generator. Send ``request``.
/// 2. Feed the response bytes to ``receive(_:sha1:)`` until it returns an ``Outcome``:
///    - `.upgraded`: the server accepted; `leftover` holds bytes that followed the head (frames).
///    - `.redirect`: a 3xx with `Location`; the transport opens a new handshake to that URL
///      (counting redirects against its limit).
///    - `.refused`: any other status; read the body as `head.bodyFraming` says (bounded), then
///      report ``refusalError(_:body:now:)``.
///
/// Validation of a 101 (each failure is a `handshake` error; the connection must be dropped):
/// `Upgrade` is `websocket` and `Connection` contains the `upgrade` token (case-insensitive);
/// `Sec-WebSocket-Accept` is base64(SHA-1(key + GUID)); a `Sec-WebSocket-Protocol` is one we
/// offered (and absent if we offered none); every `Sec-WebSocket-Extensions` entry is one we
/// offered, at most once, and permessage-deflate parameters pass RFC 7692 §7.1.
///
/// SHA-1 is injected (`sha1`) so this module stays free of C code: the transport passes
/// OpenSSL's, tests pass a small Swift one.
package struct WebSocketHandshake: Sendable {
    /// RFC 6455 §1.3.
    package static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Request headers the handshake writes itself; user headers with these names are dropped.
    package static let reservedHeaderNames: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-protocol", "sec-websocket-extensions", "sec-websocket-accept",
        "content-length", "transfer-encoding",
    ]

    package let url: URL
    /// The `Sec-WebSocket-Key` sent (base64 of 16 random bytes).
    package let key: String
    /// Subprotocols offered, in preference order.
    package let subprotocols: [String]
    /// Extension offers other than permessage-deflate, sent as given.
    package let extensions: [WebSocketExtension]
    /// The permessage-deflate offer, if the caller asked for compression.
    package let deflate: WebSocketDeflateOptions?
    /// The request head, ready to write.
    package let request: [UInt8]
    private var parser: HTTPResponseHeadParser

    /// What the server answered.
    package enum Outcome: Sendable {
        case upgraded(Upgraded)
        /// Follow to this URL (already `ws`/`wss`, resolved against the request URL).
        case redirect(URL, head: HTTPResponseHead)
        /// Not a WebSocket: `rest` holds the body bytes received with the head.
        case refused(HTTPResponseHead, rest: [UInt8])
    }

    /// A successful upgrade.
    package struct Upgraded: Sendable {
        package var head: HTTPResponseHead
        /// The subprotocol the server chose, if any.
        package var subprotocol: String?
        /// The extensions the server accepted, in its order.
        package var extensions: [WebSocketExtension]
        /// The agreed permessage-deflate parameters when the server accepted our offer.
        package var deflate: WebSocketDeflateParameters?
        /// Bytes after the response head: the first frames, to feed to the frame decoder.
        package var leftover: [UInt8]
        /// RSV bits the accepted extensions use (0x40 with permessage-deflate), for the decoder.
        package var reservedBits: UInt8 { deflate == nil ? 0 : 0x40 }
    }

    /// - Parameters:
    ///   - url: `ws` or `wss` (`http`/`https` are accepted as their WebSocket equivalents).
    ///   - headers: extra request headers; names must be tokens and values free of CR, LF and NUL.
    ///     Names in ``reservedHeaderNames`` are ignored (the handshake sets those itself).
    ///   - maxResponseHeadSize: bound on the response head, default 16 KiB.
    /// - Throws: `invalidConfiguration` for a URL without host or a bad header or option.
    package init(
        url: URL, subprotocols: [String] = [], extensions: [WebSocketExtension] = [],
        deflate: WebSocketDeflateOptions? = nil, headers: HTTPHeaders = HTTPHeaders(),
        maxResponseHeadSize: Int = HTTPResponseHeadParser.defaultMaxSize,
        generator: inout some RandomNumberGenerator
    ) throws(RealtimeError) {
        func bad(_ why: String) -> RealtimeError { RealtimeError(.invalidConfiguration, detail: why) }
        guard let scheme = url.scheme?.lowercased(), ["ws", "wss", "http", "https"].contains(scheme) else {
            throw RealtimeError(.unsupportedScheme, detail: "WebSocket needs a ws or wss URL")
        }
        guard let host = url.host(percentEncoded: true), !host.isEmpty else { throw bad("URL has no host") }
        for p in subprotocols where !WebSocketExtension.isToken(p) { throw bad("subprotocol is not an HTTP token") }
        for e in extensions where e.name == "permessage-deflate" {
            throw bad("offer permessage-deflate through the deflate option")
        }
        try deflate?.validate()
        // The generator is used through a copy: a caller's zero-sized generator
        // (`SystemRandomNumberGenerator`) arrives as an uninitialised address, harmless until
        // ThreadSanitizer checks a mutating access through it and crashes the process
        // (swiftlang/swift#66099). Reading the value is not instrumented; the copy has an
        // address of its own, and goes back only when the generator has state to carry.
        var random = generator
        let key = Data(Self.keyBytes(using: &random)).base64EncodedString()
        if MemoryLayout.size(ofValue: random) > 0 { generator = random }

        let secure = scheme == "wss" || scheme == "https"
        let hostField = host.contains(":") ? "[\(host)]" : host
        var hostHeader = hostField
        if let port = url.port, port != (secure ? 443 : 80) { hostHeader += ":\(port)" }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let q = url.query(percentEncoded: true) { target += "?" + q }

        var lines = [
            "GET \(target) HTTP/1.1",
            "Host: \(hostHeader)",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)",
            "Sec-WebSocket-Version: 13",
        ]
        if !subprotocols.isEmpty { lines.append("Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))") }
        let offers = (deflate.map { [$0.offer] } ?? []) + extensions
        if !offers.isEmpty { lines.append("Sec-WebSocket-Extensions: \(offers.map(\.description).joined(separator: ", "))") }
        for field in headers.fields {
            guard WebSocketExtension.isToken(field.name) else { throw bad("header name is not an HTTP token") }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw bad("header value contains CR, LF or NUL")
            }
            if Self.reservedHeaderNames.contains(field.name.lowercased()) { continue }
            lines.append("\(field.name): \(field.value)")
        }

        self.url = url
        self.key = key
        self.subprotocols = subprotocols
        self.extensions = extensions
        self.deflate = deflate
        self.request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        self.parser = HTTPResponseHeadParser(maxSize: maxResponseHeadSize)
    }

    /// The request head for logs: every line of ``request`` with the values of credential-bearing
    /// headers (`HTTPHeaders.isSensitive(_:)`: `Authorization`, `Cookie`, tokens…) replaced
    /// by `<redacted>`. Never log ``request`` itself.
    package var redactedRequestDescription: String {
        String(decoding: request, as: UTF8.self)
            .split(separator: "\r\n", omittingEmptySubsequences: true)
            .map { line -> String in
                guard let colon = line.firstIndex(of: ":"), HTTPHeaders.isSensitive(String(line[..<colon])) else { return String(line) }
                return "\(line[..<colon]): <redacted>"
            }
            .joined(separator: "\n")
    }

    /// 16 random bytes for `Sec-WebSocket-Key` (RFC 6455 §4.1).
    static func keyBytes(using generator: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in stride(from: 0, to: 16, by: 8) {
            let r = generator.next() as UInt64
            for j in 0..<8 { bytes[i + j] = UInt8(truncatingIfNeeded: r >> (8 * UInt64(j))) }
        }
        return bytes
    }

    /// The `Sec-WebSocket-Accept` value a server must answer to `key` (RFC 6455 §4.2.2).
    package static func acceptValue(forKey key: String, sha1: ([UInt8]) -> [UInt8]) -> String {
        Data(sha1(Array((key + guid).utf8))).base64EncodedString()
    }

    /// Feeds response bytes; returns the outcome once the whole head has arrived.
    package mutating func receive(_ bytes: some Collection<UInt8>, sha1: ([UInt8]) -> [UInt8]) throws(RealtimeError) -> Outcome? {
        guard let (head, rest) = try parser.parse(bytes) else { return nil }
        return try evaluate(head, rest: rest, sha1: sha1)
    }

    /// Decides what a complete response head means (see the type's documentation).
    package func evaluate(_ head: HTTPResponseHead, rest: [UInt8], sha1: ([UInt8]) -> [UInt8]) throws(RealtimeError) -> Outcome {
        func fail(_ why: String) -> RealtimeError { RealtimeError(.handshake, detail: why, status: head.status) }
        if head.status != 101 {
            if [301, 302, 303, 307, 308].contains(head.status) {
                guard let location = head.headers["Location"],
                      let target = URL(string: location, relativeTo: url)?.absoluteURL,
                      let mapped = Self.webSocketURL(target)
                else { throw RealtimeError(.redirect, detail: "redirect without a usable Location", status: head.status) }
                return .redirect(mapped, head: head)
            }
            return .refused(head, rest: rest)
        }
        guard let upgrade = head.headers["Upgrade"], Self.lowercasedASCII(upgrade.trimmingSpaces) == "websocket" else {
            throw fail("missing or wrong Upgrade header (RFC 6455 §4.1)")
        }
        let connection = head.headers.values(for: "Connection").flatMap { $0.split(separator: ",") }
        guard connection.contains(where: { Self.lowercasedASCII(String($0).trimmingSpaces) == "upgrade" }) else {
            throw fail("Connection header lacks the upgrade token (RFC 6455 §4.1)")
        }
        guard let accept = head.headers["Sec-WebSocket-Accept"],
              accept.trimmingSpaces == Self.acceptValue(forKey: key, sha1: sha1) else {
            throw fail("Sec-WebSocket-Accept does not match the key (RFC 6455 §4.1)")
        }

        var subprotocol: String?
        let protocols = head.headers.values(for: "Sec-WebSocket-Protocol")
        if !protocols.isEmpty {
            let chosen = protocols.joined(separator: ",").trimmingSpaces
            guard protocols.count == 1, subprotocols.contains(chosen) else {
                throw fail("server chose a subprotocol we did not offer (RFC 6455 §4.1)")
            }
            subprotocol = chosen
        }

        var accepted: [WebSocketExtension] = []
        var deflateParameters: WebSocketDeflateParameters?
        let extensionHeader = head.headers.values(for: "Sec-WebSocket-Extensions").joined(separator: ",")
        var names = Set<String>()
        for ext in try WebSocketExtension.parse(extensionHeader) {
            let name = Self.lowercasedASCII(ext.name)
            guard names.insert(name).inserted else { throw fail("extension accepted twice (RFC 6455 §9.1)") }
            if name == "permessage-deflate", let deflate {
                deflateParameters = try deflate.negotiate(ext)
            } else if !extensions.contains(where: { Self.lowercasedASCII($0.name) == name }) {
                throw fail("server accepted an extension we did not offer (RFC 6455 §4.1)")
            }
            accepted.append(ext)
        }
        return .upgraded(Upgraded(head: head, subprotocol: subprotocol, extensions: accepted, deflate: deflateParameters, leftover: rest))
    }

    /// The error for a refused handshake: `handshake` with the status, at most
    /// ``RealtimeError/maxBodyExcerpt`` bytes of `body`, decoded leniently, and the
    /// `Retry-After` the server sent (seconds or an HTTP-date, RFC 9110 §10.2.3), which the
    /// reconnect policy honours as it does for an SSE response.
    package static func refusalError(
        _ head: HTTPResponseHead, body: some Collection<UInt8>, now: Date = Date()
    ) -> RealtimeError {
        RealtimeError(
            .handshake, detail: "server answered \(head.status) instead of 101", status: head.status,
            bodyExcerpt: RealtimeError.excerpt(bytes: body),
            retryAfter: head.headers["Retry-After"].flatMap { RetryAfter.parse($0, now: now) })
    }

    /// `http(s)` → `ws(s)`; nil for other schemes.
    static func webSocketURL(_ url: URL) -> URL? {
        guard let scheme = url.scheme?.lowercased() else { return nil }
        let mapped: String
        switch scheme {
        case "ws", "http": mapped = "ws"
        case "wss", "https": mapped = "wss"
        default: return nil
        }
        guard mapped != scheme, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        components.scheme = mapped
        return components.url
    }

    static func lowercasedASCII(_ s: String) -> String {
        String(decoding: s.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
