#if os(Linux)
import CCurl
import RealtimeCore
import RealtimeIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The curl callbacks (body bytes, header lines) and what the response head decides.
extension SSEConnection {
    /// `CURLOPT_WRITEFUNCTION`: body bytes. Returns the count consumed, 0 to abort, or
    /// `CURL_WRITEFUNC_PAUSE` to have curl hold this chunk until ``resume()``.
    func received(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        lastByte = .now
        switch phase {
        case .open:
            if pauseRequested {
                pauseRequested = false
                paused = true
                return rt_curl_writefunc_pause()
            }
            guard let bytes, count > 0 else { return count }
            return parse(UnsafeRawBufferPointer(start: bytes, count: count)) ? count : 0
        case .errorBody(let status, let retryAfter, let mediaType, var excerpt):
            guard let bytes else { return count }
            let room = RealtimeError.maxBodyExcerpt - excerpt.count
            excerpt.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: min(room, count)))
            phase = .errorBody(status: status, retryAfter: retryAfter, mediaType: mediaType, excerpt: excerpt)
            // Enough for the error: stop downloading (the body may be endless).
            return excerpt.count >= RealtimeError.maxBodyExcerpt ? 0 : count
        case .jsonBody(var body):
            guard let bytes else { return count }
            guard body.count + count <= options.jsonBodyLimit ?? 0 else {
                abortReason = RealtimeError(.messageTooLarge, detail: "JSON body over \(options.jsonBodyLimit ?? 0) bytes")
                return 0
            }
            phase = .finished  // drops the array's second reference while it grows
            body.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: count))
            phase = .jsonBody(body)
            return count
        case .connecting:
            return redirectBody(count)
        case .noContent, .finished:
            // The body of a 204, if a server sends one anyway.
            return count
        }
    }

    /// Feeds a chunk of the stream to the parser and its events to the batch; false (with
    /// ``abortReason`` set) when the parser failed.
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
            abortReason = (error as? RealtimeError) ?? RealtimeError(.internal, detail: "SSE parser failed")
            return false
        }
        if batcher.isFull {
            flush()
        } else if wasEmpty, batcher.hasPending {
            CurlMultiDriver.on(loop).runAfterCurrentAction { [weak self] in self?.flush() }
        }
        return true
    }

    /// `CURLOPT_HEADERFUNCTION`: one header line. Returns 0 to abort.
    func headerLine(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        lastByte = .now
        guard case .connecting = phase, let bytes else { return count }
        guard case .end = head.consume(UnsafeRawBufferPointer(start: bytes, count: count)) else { return count }
        return headEnded() ? count : 0
    }

    /// A complete response head arrived. Returns false to abort the transfer.
    private func headEnded() -> Bool {
        var status = 0
        if let easy { _ = rt_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) }
        if (100..<200).contains(status) { return true }
        if SSEHop.isRedirect(status) { return redirectRequested(status: status) }
        cancelConnectTimer()
        switch status {
        case 200 where options.jsonBodyLimit != nil && !head.isEventStream && head.isJSON:
            phase = .jsonBody([])
            let info = ConnectionInfo(
                transport: .sse, url: effectiveURL(), status: status, headers: head.headers, attempt: request.attempt,
                httpVersion: negotiatedHTTPVersion())
            if !events.send(.opened(info)) { pauseRequested = true }
        case 202 where options.jsonBodyLimit != nil:
            phase = .noContent
        case 200:
            guard head.isEventStream else {
                // Kept like an error status's body: an API that answers JSON says why in it.
                phase = .errorBody(status: status, retryAfter: nil, mediaType: head.mediaType, excerpt: [])
                break
            }
            if let coding = head.undecodableContentCoding(decodable: CurlGlobal.contentEncodings) {
                abortReason = RealtimeError(
                    .invalidContentEncoding, detail: "Content-Encoding \(coding) cannot be decoded", status: status)
                return false
            }
            phase = .open
            let info = ConnectionInfo(
                transport: .sse, url: effectiveURL(), status: status, headers: head.headers, attempt: request.attempt,
                httpVersion: negotiatedHTTPVersion())
            if !events.send(.opened(info)) { pauseRequested = true }
        case 204:
            phase = .noContent
        default:
            let retryAfter = head.headers["Retry-After"].flatMap { RetryAfter.parse($0, now: Date()) }
            phase = .errorBody(status: status, retryAfter: retryAfter, excerpt: [])
        }
        armIdleTimer(after: request.idleTimeout)
        return true
    }

    /// The proxy's answer to curl's `CONNECT` (`CURLINFO_HTTP_CONNECTCODE`), 0 when none.
    func proxyConnectStatus() -> Int {
        var status = 0
        if let easy { _ = rt_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &status) }
        return status
    }

    /// `CURLINFO_HTTP_VERSION` as text ("1.0", "1.1", "2", "3"); nil if curl does not say.
    private func negotiatedHTTPVersion() -> String? {
        var version = 0
        guard let easy, rt_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK else { return nil }
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): return "1.0"
        case Int(CURL_HTTP_VERSION_1_1): return "1.1"
        case Int(CURL_HTTP_VERSION_2_0): return "2"
        case 30: return "3"  // CURL_HTTP_VERSION_3
        default: return nil
        }
    }

    /// The URL the stream came from, after redirects, without userinfo: curl keeps the
    /// `user:password@` of the request URL in it, and it goes into the `opened` event, which
    /// users print and log.
    private func effectiveURL() -> URL {
        var p: UnsafeMutablePointer<CChar>?
        if let easy, rt_easy_getinfo_str(easy, CURLINFO_EFFECTIVE_URL, &p) == CURLE_OK, let p,
            let url = URL(string: String(cString: p))
        {
            return url.removingUserInfo
        }
        return hop.url.removingUserInfo
    }
}
#endif
