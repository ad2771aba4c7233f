#if os(Linux)
import CCurl
import Foundation
import Glibc
import Realtime
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE

/// The server of one SSE attempt on an ``EmbeddedNetwork``, with libcurl between it and the
/// production SSE connection played by the test: each call answers the request the way
/// libcurl would report it to the connection (the head, body chunks, the end of the
/// transfer), on the loop, and runs what the connection queued.
///
/// A chunk the write callback pauses (the client's buffer is full) is kept and offered again
/// when ``pump()`` finds the transfer unpaused, as libcurl does; a chunk or header line it
/// refuses ends the transfer with `CURLE_WRITE_ERROR`, as libcurl does.
public final class EmbeddedSSEServer: @unchecked Sendable {
    /// The request the client made for this attempt (before the transport added its own
    /// headers): method, URL, headers, body, `lastEventID`.
    public let request: TransportRequest
    package let curl: ScriptedCurl
    let loop: ManualLoop
    private var started = false
    /// Body bytes the connection has not taken yet (the write callback paused).
    private var pending: [[UInt8]] = []
    /// The connection paused the transfer (its client's buffer is full); ``pump()`` offers
    /// what is pending again once it resumed.
    public private(set) var paused = false
    private var unpausesSeen = 0

    package init(request: TransportRequest, curl: ScriptedCurl, loop: ManualLoop) {
        self.request = request
        self.curl = curl
        self.loop = loop
    }

    /// The connection freed the transfer (it closed, aborted or ended).
    public var ended: Bool { curl.ended }

    /// The connection is up and the server has the request, but has not answered yet (a slow
    /// tool, a queued model): libcurl's pre-request callback, after which the connection's
    /// response timeout, not what is left of its connect timeout, bounds the wait for the head.
    /// ``respond(status:headers:)`` does this first when it was not done.
    public func receiveRequest() {
        onLoop { callbacks in startIfNeeded(callbacks) }
    }

    /// Answers with a head: `status` and `headers` (an event stream by default). For a status
    /// that is not an event stream (a 503, a redirect), the connection reads the body for its
    /// excerpt until the transfer ends: send what the server would, then ``finish()``.
    public func respond(status: Int = 200, headers: [(String, String)] = [("Content-Type", "text/event-stream")]) {
        onLoop { callbacks in
            startIfNeeded(callbacks)
            curl.responseStatus = status
            let lines = ["HTTP/1.1 \(status) Status\r\n"] + headers.map { "\($0.0): \($0.1)\r\n" } + ["\r\n"]
            for line in lines {
                var bytes = Array(line.utf8)
                guard bytes.withUnsafeMutableBytes({ callbacks.headerLine($0.baseAddress, $0.count) }) == bytes.count else {
                    // The connection refused the head: libcurl ends the transfer with a write error.
                    return callbacks.completed(CURLE_WRITE_ERROR)
                }
            }
        }
    }

    /// Sends body bytes as one chunk (raw SSE text: fields, blank lines).
    public func send(_ text: String) {
        send(Array(text.utf8))
    }

    /// Sends body bytes as one chunk, as they are (a chunk may end inside a code point).
    public func send(_ bytes: [UInt8]) {
        pending.append(bytes)
        pump()
    }

    /// Sends one event: `data` (one `data:` line per line), then `id:` and `event:` when given.
    public func event(_ data: String, id: String? = nil, type: String? = nil, retry: Int? = nil) {
        var text = data.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)\n" }.joined()
        if let id { text += "id: \(id)\n" }
        if let type { text += "event: \(type)\n" }
        if let retry { text += "retry: \(retry)\n" }
        send(text + "\n")
    }

    /// Offers what is pending while the connection takes it; false when it stays paused.
    @discardableResult
    public func pump() -> Bool {
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
                if taken != chunk.count {
                    // The connection refused the chunk (its parser failed, it stopped): libcurl
                    // ends the transfer with a write error.
                    pending = []
                    callbacks.completed(CURLE_WRITE_ERROR)
                    return
                }
            }
        }
        return !paused
    }

    /// The body ended cleanly (curl's `CURLE_OK`), at once: chunks still pending behind a
    /// pause are dropped, so ``pump()`` them first when every event must arrive.
    public func finish() { complete(CURLE_OK) }

    /// The connection was reset (`CURLE_RECV_ERROR`, errno `ECONNRESET`).
    public func reset() {
        curl.osErrno = ECONNRESET
        complete(CURLE_RECV_ERROR)
    }

    /// The connection was refused (curl's `CURLE_COULDNT_CONNECT`, errno `ECONNREFUSED`)
    /// before the request left: the server never saw it, so a client sends even a POST again.
    public func refuseConnection() {
        failBeforeRequest(CURLE_COULDNT_CONNECT, errno: ECONNREFUSED)
    }

    /// The transfer ended with `code` before the request left (a name that does not resolve,
    /// a connect that timed out, a certificate refused), with `errno` as curl's OS error.
    package func failBeforeRequest(_ code: CURLcode, errno: Int32 = 0) {
        curl.osErrno = errno
        onLoop { callbacks in
            started = true
            callbacks.completed(code)
        }
    }

    /// The transfer ended with `code` at once: chunks still pending behind a pause are
    /// dropped (``finish()`` and ``reset()`` included), so a test that ends a paused transfer
    /// drains it with ``pump()`` first when it means every byte to arrive.
    package func complete(_ code: CURLcode) {
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
