#if os(Linux)
import Foundation
import Realtime
import RealtimeCore
import RealtimeTesting
import RealtimeTestServer

/// The server of one WebSocket attempt in ``EmbeddedRig``: plays a ``PeerScenario`` on an
/// ``EmbeddedByteStream``, the way the loopback test server plays it on a socket.
final class EmbeddedWebSocketPeer {
    let stream: EmbeddedByteStream
    let scenario: PeerScenario
    private var accepted = false
    private var answered = false
    private var finished = false
    private(set) var requestCount = 0
    private var request: [UInt8] = []
    private var receiver = WebSocketReceiver(role: .server)
    private var encoder = WebSocketFrameEncoder(role: .server)

    init(stream: EmbeddedByteStream, scenario: PeerScenario) {
        self.stream = stream
        self.scenario = scenario
    }

    /// Does the next thing the scenario asks for, if the client got that far; false if
    /// there was nothing to do.
    func step() -> Bool {
        guard !finished, stream.phase != .closed else { return false }
        if !accepted {
            guard stream.phase == .connecting, scenario != .unreachable else { return false }
            accepted = true
            if scenario == .connectionRefused {
                stream.fail(RealtimeError(.network, detail: "connect: Connection refused"))
            } else {
                stream.acceptConnection()
            }
            return true
        }
        if !answered { return answerHandshake() }
        return answerFrames()
    }

    /// Reads the request up to its blank line and answers it.
    private func answerHandshake() -> Bool {
        let bytes = stream.takeWritten()
        guard !bytes.isEmpty else { return false }
        request += bytes
        let text = String(decoding: request, as: UTF8.self)
        guard text.contains("\r\n\r\n") else { return true }
        answered = true
        requestCount += 1
        switch scenario {
        case .silent:
            return true
        case .refused(let status):
            refuse(status)
        case .authorized(let token) where !text.lowercased().contains("authorization: bearer \(token.lowercased())\r\n"):
            refuse(401)
        default:
            accept(key: Self.key(in: text))
        }
        return true
    }

    private func refuse(_ status: Int) {
        stream.feed("HTTP/1.1 \(status) Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        stream.feedEOF()
        finished = true
    }

    private func accept(key: String) {
        stream.feed("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(TestServer.webSocketAccept(forKey: key))\r\n\r\n")
        switch scenario {
        case .finite(let count, let size):
            for index in 0..<count { stream.feed(encoder.text(text(index + 1, size: size))) }
            stream.feed(encoder.close(code: 1000))
        case .held(let count):
            for index in 0..<count { stream.feed(encoder.text(text(index + 1))) }
        case .deaf:
            stream.feed(encoder.text("message 1"))
            finished = true
        case .stalled:
            finished = true
        case .cut(let whole, let reset):
            // One read, as the kernel hands it over: the whole frames and half of the next.
            var bytes: [UInt8] = []
            for index in 0..<whole { bytes += encoder.text(text(index + 1, size: 100)) }
            let next = encoder.text(text(whole + 1, size: 100))
            stream.feed(bytes + next.prefix(next.count / 2))
            if reset { stream.fail() } else { stream.feedEOF() }
            finished = true
        case .silent, .refused, .authorized, .unreachable, .connectionRefused:
            break
        }
    }

    /// Answers pings and the client's close frame (then closes TCP, as a server does).
    private func answerFrames() -> Bool {
        let bytes = stream.takeWritten()
        guard !bytes.isEmpty else { return false }
        let frames = (try? receiver.receive(bytes)) ?? []
        for frame in frames {
            switch frame {
            case .ping(let payload):
                stream.feed(encoder.pong(payload))
            case .close(let code, _):
                if case .finite = scenario {} else { stream.feed(encoder.close(code: code)) }
                stream.feedEOF()
                finished = true
                return true
            default:
                break
            }
        }
        return true
    }

    private func text(_ index: Int, size: Int? = nil) -> String {
        let text = "message \(index)"
        guard let size, text.utf8.count < size else { return text }
        return text + String(repeating: "x", count: size - text.utf8.count)
    }

    private static func key(in request: String) -> String {
        request.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
    }
}
#endif
