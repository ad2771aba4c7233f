#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore
import RealtimeIO

extension WebSocketConnection {
    /// Bytes of the server's answer to the opening handshake (RFC 6455 §4.1, §4.2.2).
    func receiveHandshakeBytes(_ bytes: UnsafeRawBufferPointer) {
        let parsed: (head: HTTPResponseHead, rest: [UInt8])?
        do {
            parsed = try responseParser.parse(bytes)
        } catch {
            end(TransportEnd(clean: false, error: error))
            return
        }
        guard let (head, rest) = parsed else { return }
        if head.status == 101 {
            upgrade(head, leftover: rest)
        } else if [301, 302, 303, 307, 308].contains(head.status), let location = head.headers["Location"] {
            redirect(to: location, status: head.status)
        } else {
            refuse(head, leftover: rest)
        }
    }

    private func upgrade(_ head: HTTPResponseHead, leftover: [UInt8]) {
        guard let handshake else { return }
        let accepted: WebSocketHandshake.Accepted
        do {
            accepted = try handshake.validate(head)
        } catch {
            end(TransportEnd(clean: false, error: error))
            return
        }
        if let timer = connectTimer {
            eventLoop.cancel(timer)
            connectTimer = nil
        }
        state = .open
        let info = ConnectionInfo(
            transport: .webSocket, url: url, status: 101, headers: head.headers,
            subprotocol: accepted.subprotocol, extensions: accepted.extensions, attempt: request.attempt)
        openedInfo = info
        events.send(.opened(info))
        startTimers()
        let early = sendsBeforeOpen
        sendsBeforeOpen = []
        for (message, continuation) in early {
            sendAdmitted(message, continuation)
        }
        if !leftover.isEmpty {
            // Frames the server sent right behind its 101 (same TCP segment).
            leftover.withUnsafeBytes { receiveFrames($0) }
        }
    }

    /// 3xx with `Location`: a new connection to the new URL, within `maxRedirects`.
    private func redirect(to location: String, status: Int) {
        redirects += 1
        guard redirects <= request.maxRedirects else {
            end(TransportEnd(clean: false, error: RealtimeError(.redirect, detail: "more than \(request.maxRedirects) redirects", status: status), requestWasDelivered: false))
            return
        }
        guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
            end(TransportEnd(clean: false, error: RealtimeError(.redirect, detail: "unusable Location header", status: status), requestWasDelivered: false))
            return
        }
        if let stream {
            stream.delegate = nil
            stream.close()
            self.stream = nil
        }
        url = next
        connect()
    }

    /// A non-101 answer: the handshake failed. Collects up to
    /// ``RealtimeError/maxBodyExcerpt`` bytes of body (bounded by the connect deadline and the
    /// declared length) so the error can say what the server said.
    private func refuse(_ head: HTTPResponseHead, leftover: [UInt8]) {
        var wanted = RealtimeError.maxBodyExcerpt
        if let length = head.headers["Content-Length"].flatMap({ Int($0) }) {
            wanted = min(wanted, max(length, 0))
        }
        let body = Array(leftover.prefix(wanted))
        state = .readingErrorBody(status: head.status, body: body, wanted: wanted)
        if body.count >= wanted {
            finishErrorBody()
        } else {
            // Do not wait long for a body that may never come.
            if let timer = connectTimer { eventLoop.cancel(timer) }
            connectTimer = eventLoop.schedule(after: .milliseconds(500)) { [weak self] in
                self?.connectTimer = nil
                self?.finishErrorBody()
            }
        }
    }

    func finishErrorBody() {
        guard case .readingErrorBody(let status, let body, _) = state else { return }
        let excerpt = body.isEmpty ? nil : String(decoding: body, as: UTF8.self)
        end(TransportEnd(
            clean: false,
            error: RealtimeError(.handshake, detail: "server answered \(status) instead of 101 Switching Protocols", status: status, bodyExcerpt: excerpt)))
    }
}
