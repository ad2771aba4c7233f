#if os(Linux)
import CCurl
import Foundation
import Glibc
import Realtime
import RealtimeCore
import RealtimeTesting
import RealtimeSSE

/// The server of one SSE attempt in ``EmbeddedRig``, and libcurl between it and the
/// connection: plays a ``PeerScenario`` by calling a ``ScriptedCurl``'s callbacks (the
/// pre-request callback, header lines, body chunks, the completion) on the loop.
///
/// A chunk the write callback pauses is offered again once the connection unpauses the
/// transfer, as libcurl does.
final class EmbeddedSSEPeer {
    let curl: ScriptedCurl
    let loop: ManualLoop
    let scenario: PeerScenario
    private var requestStarted = false
    private var headSent = false
    /// Body chunks not yet taken, then how the transfer ends (nil: it stays open).
    private var body: [[UInt8]] = []
    private var completion: CURLcode?
    private(set) var paused = false
    private var unpausesSeen = 0
    private(set) var requestCount = 0

    init(curl: ScriptedCurl, loop: ManualLoop, scenario: PeerScenario) {
        self.curl = curl
        self.loop = loop
        self.scenario = scenario
    }

    /// Does the next thing the scenario asks for; false if there was nothing to do.
    func step() -> Bool {
        guard curl.isAttached, let callbacks = curl.callbacks else { return false }
        return loop.onLoop {
            if !requestStarted {
                switch scenario {
                case .unreachable: return false
                case .connectionRefused:
                    curl.osErrno = ECONNREFUSED
                    callbacks.completed(CURLE_COULDNT_CONNECT)
                default: callbacks.requestStarting()
                }
                requestStarted = true
                return true
            }
            if !headSent {
                headSent = true
                requestCount += 1
                answer(callbacks)
                return true
            }
            return pump(callbacks)
        }
    }

    private func answer(_ callbacks: any SSECurlCallbacks) {
        switch scenario {
        case .silent, .unreachable, .connectionRefused:
            break
        case .refused(let status):
            refuse(status, callbacks)
        case .authorized(let token) where curl.hops.last?.headers["Authorization"] != "Bearer \(token)":
            refuse(401, callbacks)
        case .finite(let count, let size):
            head(200, [("Content-Type", "text/event-stream")], callbacks)
            body = (0..<count).map { event($0 + 1, size: size) }
            completion = CURLE_OK
        case .held(let count):
            head(200, [("Content-Type", "text/event-stream")], callbacks)
            body = (0..<count).map { event($0 + 1) }
        case .deaf:
            head(200, [("Content-Type", "text/event-stream")], callbacks)
            body = [event(1)]
        case .stalled:
            head(200, [("Content-Type", "text/event-stream")], callbacks)
        case .cut(let whole, let reset):
            head(200, [("Content-Type", "text/event-stream")], callbacks)
            // One chunk, as curl hands it over: the whole events and half of the next.
            let next = event(whole + 1, size: 100)
            body = [(0..<whole).flatMap { event($0 + 1, size: 100) } + next.prefix(next.count / 2)]
            curl.osErrno = reset ? ECONNRESET : 0
            completion = reset ? CURLE_RECV_ERROR : CURLE_PARTIAL_FILE
        case .authorized:
            head(200, [("Content-Type", "text/event-stream")], callbacks)
        }
    }

    private func refuse(_ status: Int, _ callbacks: any SSECurlCallbacks) {
        head(status, [("Content-Type", "text/plain")], callbacks)
        body = [Array("refused".utf8)]
        completion = CURLE_OK
    }

    private func head(_ status: Int, _ headers: [(String, String)], _ callbacks: any SSECurlCallbacks) {
        curl.responseStatus = status
        let lines = ["HTTP/1.1 \(status) Status\r\n"] + headers.map { "\($0.0): \($0.1)\r\n" } + ["\r\n"]
        for line in lines {
            var bytes = Array(line.utf8)
            let taken = bytes.withUnsafeMutableBytes { callbacks.headerLine($0.baseAddress, $0.count) }
            if taken == 0 {
                body = []
                completion = CURLE_WRITE_ERROR
                return
            }
        }
    }

    /// Offers the next body chunk (again, once unpaused), or completes the transfer.
    private func pump(_ callbacks: any SSECurlCallbacks) -> Bool {
        if paused {
            guard curl.unpauses > unpausesSeen else { return false }
            paused = false
        }
        guard !body.isEmpty else {
            guard let code = completion else { return false }
            completion = nil
            callbacks.completed(code)
            return true
        }
        var chunk = body[0]
        let taken = chunk.withUnsafeMutableBytes { callbacks.received($0.baseAddress, $0.count) }
        curl.actionReturns()
        if taken == Int(rt_curl_writefunc_pause()) {
            paused = true
            unpausesSeen = curl.unpauses
        } else if taken == chunk.count {
            body.removeFirst()
        } else {
            body = []
            completion = CURLE_WRITE_ERROR
        }
        return true
    }

    /// Event `index` as the loopback server writes it (`id`, then the text as `data`).
    private func event(_ index: Int, size: Int? = nil) -> [UInt8] {
        var text = "event \(index)"
        if let size, text.utf8.count < size { text += String(repeating: "x", count: size - text.utf8.count) }
        return Array("id: \(index)\ndata: \(text)\n\n".utf8)
    }
}
#endif
