#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@testable import RealtimeCore

/// The client's opening handshake (RFC 6455 §4.1, §4.2.2; RFC 7692 §7.1): validation of the
/// server's answer to an offer the input chooses.
///
/// Input: a chunking seed, the offer (subprotocols, permessage-deflate and its parameters,
/// another extension), then the response bytes, where `@ACCEPT@` stands for the correct
/// `Sec-WebSocket-Accept` so the fuzzer reaches the checks behind it. Invariants:
/// - whole and chunked responses give the same outcome or error, and errors are
///   `handshake` or `redirect`;
/// - an upgrade is a 101 with `Upgrade: websocket`, the `upgrade` token and the right accept
///   value; its subprotocol and extensions were offered, each extension accepted once, and
///   deflate parameters exist only when deflate was offered; `leftover` is what followed the head;
/// - a redirect goes to a `ws` or `wss` URL;
/// - the request carries the credential headers, its redacted description never does;
/// - an extension header that parses, written out again, parses to the same extensions.
enum WebSocketHandshakeFuzz {
    static let subprotocols = ["chat", "superchat", "v2.json"]
    static let url = URL(string: "ws://example.com:8080/feed?x=1")!

    /// SHA-1 stand-in: the accept value only has to be a function of the key for these checks.
    static func digest(_ bytes: [UInt8]) -> [UInt8] { Array((bytes + [UInt8](repeating: 0, count: 20)).prefix(20)) }

    static func offer(_ input: inout FuzzInput) -> (protocols: [String], extensions: [WebSocketExtension], deflate: WebSocketDeflateOptions?) {
        let flags = input.byte()
        let protocols = subprotocols.enumerated().filter { flags & (1 << $0.offset) != 0 }.map(\.element)
        let extensions = flags & 8 != 0 ? [WebSocketExtension(name: "x-webkit-test", parameters: [.init(name: "level", value: "1")])] : []
        guard flags & 16 != 0 else { return (protocols, extensions, nil) }
        var deflate = WebSocketDeflateOptions()
        let p = input.byte()
        deflate.serverNoContextTakeover = p & 1 != 0
        deflate.clientNoContextTakeover = p & 2 != 0
        deflate.serverMaxWindowBits = p & 4 != 0 ? 8 + Int(p >> 5) : nil
        switch (p >> 3) & 3 {
        case 0: deflate.clientMaxWindowBits = .notOffered
        case 1: deflate.clientMaxWindowBits = .supported
        default: deflate.clientMaxWindowBits = .bits(9 + Int(p >> 5) % 7)
        }
        return (protocols, extensions, deflate)
    }

    /// `bytes` with every `marker` replaced (bytes, not text: invalid UTF-8 stays as it is).
    static func replacing(_ marker: [UInt8], with value: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i...].starts(with: marker) {
                out += value
                i += marker.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    /// What the handshake made of the response, and every byte after the head (what the
    /// transport would read next: frames, a refusal's body), however the bytes were cut.
    static func outcome(_ handshake: WebSocketHandshake, _ chunks: [ArraySlice<UInt8>]) -> (String, [UInt8]) {
        var handshake = handshake
        for (i, chunk) in chunks.enumerated() {
            let later = chunks[(i + 1)...].flatMap { $0 }
            do throws(RealtimeError) {
                guard let outcome = try handshake.receive(chunk, sha1: digest) else { continue }
                switch outcome {
                case .upgraded(var upgraded):
                    let after = upgraded.leftover + later
                    upgraded.leftover = []
                    return ("upgraded \(upgraded)", after)
                case .redirect(let url, let head):
                    return ("redirect \(url) \(head)", [])  // the transport reads no further
                case .refused(let head, let rest):
                    return ("refused \(head)", rest + later)
                }
            } catch {
                require(error.code == .handshake || error.code == .redirect, "unexpected error \(error)")
                return ("error \(error.code)", [])
            }
        }
        return ("incomplete", [])
    }

    static func check(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let seed = input.uint64()
        let (protocols, extensions, deflate) = offer(&input)
        let secret = "s3cr3t-\(String(input.uint64(), radix: 36))"
        var generator = SplitMix64(seed: seed)
        let handshake: WebSocketHandshake
        do throws(RealtimeError) {
            handshake = try WebSocketHandshake(
                url: url, subprotocols: protocols, extensions: extensions, deflate: deflate,
                headers: ["Authorization": "Bearer \(secret)", "Cookie": "id=\(secret)", "X-Trace": "t"],
                generator: &generator)
        } catch {
            return require(false, "a valid offer was refused: \(error)")
        }
        let request = String(decoding: handshake.request, as: UTF8.self)
        require(request.contains(secret), "the request lost its credentials")
        require(!handshake.redactedRequestDescription.contains(secret), "a credential in the redacted request")

        let accept = WebSocketHandshake.acceptValue(forKey: handshake.key, sha1: digest)
        let response = replacing(Array("@ACCEPT@".utf8), with: Array(accept.utf8), in: input.rest())
        let whole = outcome(handshake, [response[...]])
        let chunked = outcome(handshake, FuzzChunks.split(response, seed: seed))
        require(whole == chunked, "chunking changed the outcome: \(short(chunked)) vs whole \(short(whole))")
        if whole.0.hasPrefix("upgraded") || whole.0.hasPrefix("refused") {
            require(response.suffix(whole.1.count).elementsEqual(whole.1), "the bytes after the head are not the response's")
        }

        var parser = HTTPResponseHeadParser()
        guard case let (head, rest)?? = try? parser.parse(response) else { return }
        checkExtensionsRoundTrip(head)
        guard let result = try? handshake.evaluate(head, rest: rest, sha1: digest) else { return }
        switch result {
        case .upgraded(let upgraded):
            checkUpgrade(upgraded, accept: accept, protocols: protocols, extensions: extensions, deflate: deflate, rest: rest)
        case .redirect(let target, _):
            require(["ws", "wss"].contains(target.scheme ?? ""), "redirect to \(target)")
        case .refused(let head, _):
            require(head.status != 101, "a 101 refused")
        }
    }

    static func checkUpgrade(
        _ upgraded: WebSocketHandshake.Upgraded, accept: String, protocols: [String], extensions: [WebSocketExtension],
        deflate: WebSocketDeflateOptions?, rest: [UInt8]
    ) {
        let head = upgraded.head
        require(head.status == 101, "upgrade with status \(head.status)")
        require(head.headers["Upgrade"].map { WebSocketExtension.trim($0).lowercased() } == "websocket", "Upgrade header")
        require(head.headers.values(for: "Connection").joined(separator: ",").lowercased().contains("upgrade"), "Connection header")
        require(head.headers["Sec-WebSocket-Accept"].map { WebSocketExtension.trim($0) } == accept, "accept value")
        if let chosen = upgraded.subprotocol { require(protocols.contains(chosen), "subprotocol \(chosen) not offered") }
        let names = upgraded.extensions.map { $0.name.lowercased() }
        require(Set(names).count == names.count, "an extension accepted twice: \(names)")
        for name in names {
            let offered = extensions.contains { $0.name.lowercased() == name } || (name == "permessage-deflate" && deflate != nil)
            require(offered, "extension \(name) not offered")
        }
        require(deflate != nil || upgraded.deflate == nil, "deflate parameters without an offer")
        require(upgraded.leftover == rest, "leftover bytes differ")
    }

    static func checkExtensionsRoundTrip(_ head: HTTPResponseHead) {
        let header = head.headers.values(for: "Sec-WebSocket-Extensions").joined(separator: ",")
        guard let parsed = try? WebSocketExtension.parse(header) else { return }
        let written = parsed.map(\.description).joined(separator: ", ")
        let again = try? WebSocketExtension.parse(written)
        require(again == parsed, "extensions \(short(parsed)) wrote \(short(written)), read back \(short(again))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketHandshake(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    WebSocketHandshakeFuzz.check(data, size)
    return 0
}
