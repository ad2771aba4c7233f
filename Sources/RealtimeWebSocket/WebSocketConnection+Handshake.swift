#if os(Linux)
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

extension WebSocketConnection {
    /// Bytes of the server's answer to the opening handshake (RFC 6455 §4.1, §4.2.2), fed to
    /// the codec's ``WebSocketHandshake`` validator.
    func receiveHandshakeBytes(_ bytes: UnsafeRawBufferPointer) {
        guard var handshake else { return }
        let outcome: WebSocketHandshake.Outcome?
        do {
            outcome = try handshake.receive(bytes, sha1: OpenSSLSHA1.digest)
        } catch {
            if let ending = machine.handshakeFailed(error) { perform(ending) }
            return
        }
        self.handshake = handshake
        switch outcome {
        case nil:
            return // the head is not complete yet
        case .upgraded(let upgraded):
            upgrade(upgraded)
        case .redirect(let next, let head):
            redirect(to: next, status: head.status)
        case .refused(let head, let rest):
            refuse(head, leftover: rest)
        }
    }

    private func upgrade(_ upgraded: WebSocketHandshake.Upgraded) {
        // RFC 6455 §4.1: established; the next connection to this address may open.
        stream?.openingEnded()
        if let agreed = upgraded.deflate {
            do {
                try startCompression(agreed)
            } catch {
                if let ending = machine.handshakeFailed(error) { perform(ending) }
                return
            }
        }
        switch machine.handshakeSucceeded(now: loop.now) {
        case .open(let heartbeat, let idle):
            cancel(.connect)
            if let heartbeat { arm(.heartbeat, at: heartbeat) }
            if let idle { arm(.idle, at: idle) }
        }
        events.send(.opened(ConnectionInfo(
            transport: .webSocket, url: machine.url.removingUserInfo, status: 101, headers: upgraded.head.headers,
            subprotocol: upgraded.subprotocol, extensions: upgraded.extensions.map(\.description),
            attempt: request.attempt, httpVersion: "1.1")))
        // What `send` accepted during the handshake goes out right behind it, in order.
        let early = sends.withLock { $0.opened() }
        if !early.isEmpty { writeBatch(early) }
        if !upgraded.leftover.isEmpty, !machine.isClosed {
            // Frames the server sent right behind its 101 (same TCP segment).
            upgraded.leftover.withUnsafeBytes { receiveFrames($0) }
        }
    }

    /// Sets up permessage-deflate with the agreed parameters (RFC 7692 §7.1): the inflater
    /// joins the receive pipeline, and the decoder accepts RSV1.
    private func startCompression(_ agreed: WebSocketDeflateParameters) throws(RealtimeError) {
        let offer = options.compression.deflateOffer ?? WebSocketDeflateOptions()
        receiver.inflater = try WebSocketInflater(
            windowBits: agreed.serverMaxWindowBits, noContextTakeover: agreed.serverNoContextTakeover,
            maxMessageSize: options.maxMessageSize)
        if let c = offer.compressor(for: agreed) {
            deflater = try WebSocketDeflater(
                windowBits: c.windowBits, noContextTakeover: c.noContextTakeover, level: c.level, memoryLevel: c.memoryLevel)
        }
        receiver.decoder.allowedReservedBits = 0x40
    }

    /// 3xx with `Location`: a new connection to the new URL, if the machine allows it.
    private func redirect(to next: URL, status: Int) {
        switch machine.redirected(to: next, status: status) {
        case .follow(let url, let sendCredentials):
            if let stream {
                stream.delegate = nil
                stream.close()
                self.stream = nil
            }
            connect(to: url, sendCredentials: sendCredentials)
        case .end(let ending):
            perform(ending)
        }
    }

    /// A non-101 answer: the handshake failed. Collects up to
    /// ``RealtimeError/maxBodyExcerpt`` bytes of body (bounded by the declared length and
    /// half a second) so the error can say what the server said.
    private func refuse(_ head: HTTPResponseHead, leftover: [UInt8]) {
        var wanted = RealtimeError.maxBodyExcerpt
        switch head.bodyFraming {
        case .none: wanted = 0
        case .contentLength(let n): wanted = min(wanted, n)
        case .chunked, .untilClose: break
        }
        stream?.openingEnded()  // refused: failed, as far as RFC 6455 §4.1 is concerned
        let body = Array(leftover.prefix(wanted))
        refusal = (head, body, wanted)
        switch machine.handshakeRefused(now: loop.now, bodyComplete: body.count >= wanted) {
        case .finishErrorBody: finishErrorBody()
        case .collectBody(let deadline): arm(.connect, at: deadline)
        }
    }

    func collectErrorBody(_ bytes: UnsafeRawBufferPointer) {
        guard var refusal else { return }
        refusal.body.append(contentsOf: bytes.prefix(refusal.wanted - refusal.body.count))
        self.refusal = refusal
        if refusal.body.count >= refusal.wanted { finishErrorBody() }
    }

    func finishErrorBody() {
        guard let refusal else { return }
        self.refusal = nil
        var excerpt = refusal.body
        if refusal.head.bodyFraming == .chunked {
            excerpt = Self.dechunkedPrefix(excerpt)
        }
        if let ending = machine.handshakeFailed(WebSocketHandshake.refusalError(refusal.head, body: excerpt)) {
            perform(ending)
        }
    }

    /// The data of the first chunks of a chunked body (RFC 9112 §7.1), for an error excerpt.
    static func dechunkedPrefix(_ body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < body.count {
            guard let lineEnd = body[i...].firstIndex(of: 10) else { break }
            let sizeText = String(decoding: body[i..<lineEnd].prefix { $0 != 0x3B && $0 != 13 && $0 != 0x20 }, as: UTF8.self)
            guard let size = Int(sizeText, radix: 16), size > 0 else { break }
            let start = lineEnd + 1
            out.append(contentsOf: body[start..<min(start + size, body.count)])
            i = start + size + 2
        }
        return out
    }
}
#endif
