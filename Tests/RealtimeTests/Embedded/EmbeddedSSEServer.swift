#if os(Linux)
import CCurl
import Foundation
import Glibc
import Realtime
import RealtimeCore
import RealtimeIOTestSupport
import RealtimeSSE
import RealtimeSSETestSupport

/// The server of one SSE attempt of an ``EmbeddedClient``, and libcurl between it and the
/// production connection: the test answers the request by calling a ``ScriptedCurl``'s
/// callbacks (the pre-request callback, header lines, body chunks, the completion) on the
/// loop, the way libcurl does, and each call runs what the connection queued.
///
/// A chunk the write callback pauses (the client's buffer is full) is kept and offered again
/// when ``pump()`` finds the transfer unpaused, as libcurl does.
final class EmbeddedSSEServer: @unchecked Sendable {
    /// The request the client made for this attempt (before the transport added its headers).
    let request: TransportRequest
    let curl: ScriptedCurl
    let loop: ManualLoop
    private var started = false
    /// Body bytes the connection has not taken yet (the write callback paused).
    private var pending: [[UInt8]] = []
    private(set) var paused = false
    private var unpausesSeen = 0

    init(request: TransportRequest, curl: ScriptedCurl, loop: ManualLoop) {
        self.request = request
        self.curl = curl
        self.loop = loop
    }

    /// The transfer was freed by the connection (closed, aborted, ended).
    var ended: Bool { curl.ended }

    /// The headers of the request the connection began (its own `Accept`, `Last-Event-ID`…
    /// are added when curl sends it, so they are not here).
    var headers: HTTPHeaders { curl.hops.first?.headers ?? request.headers }

    /// Answers with a head: `status` and `headers` (an event stream by default).
    func respond(status: Int = 200, headers: [(String, String)] = [("Content-Type", "text/event-stream")]) {
        onLoop { callbacks in
            startIfNeeded(callbacks)
            curl.responseStatus = status
            let lines = ["HTTP/1.1 \(status) Status\r\n"] + headers.map { "\($0.0): \($0.1)\r\n" } + ["\r\n"]
            for line in lines {
                var bytes = Array(line.utf8)
                guard bytes.withUnsafeMutableBytes({ callbacks.headerLine($0.baseAddress, $0.count) }) != 0 else { return }
            }
        }
    }

    /// Sends body bytes as one chunk (raw SSE text: fields, blank lines).
    func send(_ text: String) {
        pending.append(Array(text.utf8))
        pump()
    }

    /// Sends one event: `data` (one `data:` line per line), then `id:` and `event:` when given.
    func event(_ data: String, id: String? = nil, type: String? = nil, retry: Int? = nil) {
        var text = data.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)\n" }.joined()
        if let id { text += "id: \(id)\n" }
        if let type { text += "event: \(type)\n" }
        if let retry { text += "retry: \(retry)\n" }
        send(text + "\n")
    }

    /// Offers what is pending while the connection takes it; false when it stays paused.
    @discardableResult
    func pump() -> Bool {
        onLoop { callbacks in
            if paused {
                guard curl.unpauses > unpausesSeen else { return }
                paused = false
            }
            while !pending.isEmpty {
                var chunk = pending[0]
                let taken = chunk.withUnsafeMutableBytes { callbacks.received($0.baseAddress, $0.count) }
                curl.actionReturns()
                if taken == Int(rt_curl_writefunc_pause()) {
                    paused = true
                    unpausesSeen = curl.unpauses
                    return
                }
                pending.removeFirst()
            }
        }
        return !paused
    }

    /// The body ended cleanly (curl's `CURLE_OK`).
    func finish() { complete(CURLE_OK) }

    /// The connection was reset (`CURLE_RECV_ERROR`, errno `ECONNRESET`).
    func reset() {
        curl.osErrno = ECONNRESET
        complete(CURLE_RECV_ERROR)
    }

    /// The transfer ended with `code` (after what is pending was taken).
    func complete(_ code: CURLcode) {
        onLoop { callbacks in
            startIfNeeded(callbacks)
            callbacks.completed(code)
        }
    }

    private func startIfNeeded(_ callbacks: any SSECurlCallbacks) {
        guard !started else { return }
        started = true
        callbacks.requestStarting()
    }

    /// Runs `body` as loop work with the connection's callbacks, when the transfer is still
    /// attached; then the loop runs what it queued.
    private func onLoop(_ body: (any SSECurlCallbacks) -> Void) {
        loop.onLoop {
            guard curl.isAttached, let callbacks = curl.callbacks else { return }
            body(callbacks)
        }
    }
}
#endif
