#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore
import RealtimeIO

extension WebSocketConnection {
    /// Bytes of the server's answer to the opening handshake (RFC 6455 §4.1, §4.2.2), fed to
    /// the codec's ``WebSocketHandshake`` validator.
    func receiveHandshakeBytes(_ bytes: UnsafeRawBufferPointer) {
        guard var handshake else { return }
        let outcome: WebSocketHandshake.Outcome?
        do {
            outcome = try handshake.receive(bytes, sha1: OpenSSLSHA1.digest)
        } catch {
            end(TransportEnd(clean: false, error: error))
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
        if let timer = connectTimer {
            eventLoop.cancel(timer)
            connectTimer = nil
        }
        if let agreed = upgraded.deflate {
            do {
                try startCompression(agreed)
            } catch {
                end(TransportEnd(clean: false, error: error))
                return
            }
        }
        state = .open
        let info = ConnectionInfo(
            transport: .webSocket, url: url, status: 101, headers: upgraded.head.headers,
            subprotocol: upgraded.subprotocol, extensions: upgraded.extensions.map(\.description),
            attempt: request.attempt, httpVersion: "1.1")
        openedInfo = info
        events.send(.opened(info))
        startTimers()
        let early = sendsBeforeOpen
        sendsBeforeOpen = []
        for (message, continuation) in early {
            sendAdmitted(message, continuation)
        }
        if !upgraded.leftover.isEmpty {
            // Frames the server sent right behind its 101 (same TCP segment).
            upgraded.leftover.withUnsafeBytes { receiveFrames($0) }
        }
    }

    /// Sets up permessage-deflate with the agreed parameters (RFC 7692 §7.1) and lets the
    /// decoder accept RSV1.
    private func startCompression(_ agreed: WebSocketDeflateParameters) throws(RealtimeError) {
        let offer = options.compression.deflateOffer ?? WebSocketDeflateOptions()
        inflater = try WebSocketInflater(
            windowBits: agreed.serverMaxWindowBits, noContextTakeover: agreed.serverNoContextTakeover,
            maxMessageSize: options.maxMessageSize)
        if agreed.clientMaxWindowBits >= 9 {
            // We reset our context when the server asks (§7.1.1.2) or when we said we would.
            deflater = try WebSocketDeflater(
                windowBits: agreed.clientMaxWindowBits,
                noContextTakeover: agreed.clientNoContextTakeover || offer.clientNoContextTakeover,
                level: offer.compressionLevel)
        }
        decoder.allowedReservedBits = 0x40
    }

    /// 3xx with `Location`: a new connection to the new URL, within `maxRedirects`.
    private func redirect(to next: URL, status: Int) {
        redirects += 1
        guard redirects <= request.maxRedirects else {
            end(TransportEnd(
                clean: false, error: RealtimeError(.redirect, detail: "more than \(request.maxRedirects) redirects", status: status),
                requestWasDelivered: false))
            return
        }
        if let stream {
            stream.delegate = nil
            stream.close()
            self.stream = nil
        }
        // Credentials never leave their origin (as for SSE, RFC 9110 §15.4 / RFC 6454).
        if HTTPOrigin(url) != HTTPOrigin(next) { credentialsDropped = true }
        url = next
        connect()
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
        refusedHead = head
        let body = Array(leftover.prefix(wanted))
        state = .readingErrorBody(status: head.status, body: body, wanted: wanted)
        if body.count >= wanted {
            finishErrorBody()
        } else {
            if let timer = connectTimer { eventLoop.cancel(timer) }
            connectTimer = eventLoop.schedule(after: .milliseconds(500)) { [weak self] in
                self?.connectTimer = nil
                self?.finishErrorBody()
            }
        }
    }

    func finishErrorBody() {
        guard case .readingErrorBody(_, let body, _) = state, let head = refusedHead else { return }
        var excerpt = body
        if head.bodyFraming == .chunked {
            excerpt = Self.dechunkedPrefix(body)
        }
        end(TransportEnd(clean: false, error: WebSocketHandshake.refusalError(head, body: excerpt)))
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
