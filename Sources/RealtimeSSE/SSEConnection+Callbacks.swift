#if os(Linux)
import CCurl
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The curl callbacks (body bytes, header lines), fed to the machine, and what its response
/// head verdict asks for.
extension SSEConnection {
    /// `CURLOPT_WRITEFUNCTION`: body bytes. Returns the count consumed, 0 to abort, or
    /// `CURL_WRITEFUNC_PAUSE` to have curl hold this chunk until ``resume()``.
    func received(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        switch machine.bodyReceived(bytes, count: count, now: loop.now) {
        case .parse:
            return parse(UnsafeRawBufferPointer(start: bytes, count: count)) ? count : 0
        case .consume:
            return count
        case .pause:
            return rt_curl_writefunc_pause()
        case .stop:
            return 0
        }
    }

    /// Feeds a chunk of the stream to the parser and its events to the batch; false (with
    /// the machine's abort reason set) when the parser failed.
    private func parse(_ chunk: UnsafeRawBufferPointer) -> Bool {
        // The batcher is lent to the feed as a local (see SSEEventBatcher).
        var batch = SSEEventBatcher.placeholder
        swap(&batch, &batcher)
        let wasEmpty = !batch.hasPending
        let fed = Result {
            try parser.feed(chunk) { output in
                if case .retry(let ms) = output {
                    batch.appendRetry(milliseconds: ms)
                } else if case .comment(let text) = output {
                    batch.appendComment(text)
                }
            } borrowing: { e in
                batch.append(e)
            }
        }
        swap(&batch, &batcher)
        do {
            try fed.get()
        } catch {
            machine.parserFailed((error as? RealtimeError) ?? RealtimeError(.internal, detail: "SSE parser failed"))
            return false
        }
        if batcher.isFull {
            flush()
        } else if wasEmpty, batcher.hasPending {
            curl.runAfterCurrentAction { [weak self] in self?.flush() }
        }
        return true
    }

    /// `CURLOPT_PREREQFUNCTION`: connected (TLS included), about to build and send the
    /// request. From then on a byte of the request may reach the server.
    func requestStarting() {
        curl.connectionReady()
        if let deadline = machine.requestStarted(now: loop.now) { arm(.connect, at: deadline) }
    }

    /// `CURLOPT_HEADERFUNCTION`: one header line. Returns 0 to abort.
    func headerLine(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        let line = bytes.map { UnsafeRawBufferPointer(start: $0, count: count) }
        guard machine.headerLineReceived(line, now: loop.now) else { return count }
        let status = curl.responseStatus
        switch machine.responseHeadEnded(status: status, now: loop.now, date: Date()) {
        case .proceed:
            return count
        case .abort:
            return 0
        case .final(let reportsOpened, let idleDeadline):
            cancel(.connect)
            curl.responseHeadArrived()
            if reportsOpened {
                let info = ConnectionInfo(
                    transport: .sse, url: effectiveURL(), status: status, headers: machine.head.headers,
                    attempt: attempt, httpVersion: curl.httpVersion)
                if !events.send(.opened(info)) { machine.deliveryRefused() }
            }
            if let idleDeadline { arm(.idle, at: idleDeadline) }
            return count
        }
    }

    /// The URL the stream came from, after redirects, without userinfo: curl keeps the
    /// `user:password@` of the request URL in it, and it goes into the `opened` event, which
    /// users print and log.
    private func effectiveURL() -> URL {
        (curl.effectiveURL ?? machine.hop.url).removingUserInfo
    }
}
#endif
