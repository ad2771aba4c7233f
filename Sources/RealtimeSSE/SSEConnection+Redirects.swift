#if os(Linux)
import CCurl
import RealtimeCore
import RealtimeIO

/// Redirects, followed by the transport rather than by curl (see ``SSEHop``): a redirect's
/// head names the next request, which is sent on the same easy handle once the redirect's
/// own transfer completes.
extension SSEConnection {
    /// A redirect's body is read (so its connection can be reused) up to this many bytes,
    /// then cut: it may be endless, and nobody reads it.
    static let redirectBodyLimit = 64 * 1024

    /// A `status` redirect's head arrived: notes the request to follow, or sets
    /// ``abortReason`` and returns false for an unusable `Location` or one redirect too many.
    func redirectRequested(status: Int) -> Bool {
        do {
            let next = try hop.following(status: status, location: head.headers["Location"])
            guard redirects < request.maxRedirects else {
                abortReason = RealtimeError(.redirect, detail: "more than \(request.maxRedirects) redirects", status: status)
                return false
            }
            nextHop = next
            return true
        } catch {
            abortReason = error
            return false
        }
    }

    /// Body bytes of a redirect being followed (1xx have none): discarded, and cut past
    /// ``redirectBodyLimit`` (returning 0 ends the transfer; its completion then follows).
    func redirectBody(_ count: Int) -> Int {
        redirectBodyBytes += count
        return redirectBodyBytes <= Self.redirectBodyLimit ? count : 0
    }

    /// Sends `next` on the same easy handle (its connection may be reused from the multi
    /// handle's cache). The connect timer keeps running: it bounds the whole chain up to the
    /// final response head.
    func follow(_ next: SSEHop) {
        guard let easy else { return }
        let driver = CurlMultiDriver.on(loop)
        driver.remove(easy)
        curl_easy_reset(easy)
        if let headerList {
            curl_slist_free_all(headerList)
            self.headerList = nil
        }
        hop = next
        redirects += 1
        redirectBodyBytes = 0
        if let problem = configure(easy) {
            finish(TransportEnd(clean: false, error: problem, requestWasDelivered: requestMayHaveBeenDelivered()))
            return
        }
        guard driver.add(easy, completion: { [self] code in completed(code) }) else {
            finish(TransportEnd(
                clean: false, error: RealtimeError(.internal, detail: "curl_multi_add_handle failed"),
                requestWasDelivered: requestMayHaveBeenDelivered()))
            return
        }
    }
}
#endif
