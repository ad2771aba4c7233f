#if os(Linux)
import CCurl
@_spi(Transport) import RealtimeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an SSE attempt needs from libcurl: one easy handle attached to the loop's multi
/// handle, and what the handle knows about its transfer. ``CurlEasyTransfer`` is the real
/// one; a test passes a scripted one and plays curl by calling the ``SSECurlCallbacks`` of
/// the connection itself, with no handle and no socket.
///
/// Threading: every member is used on the connection's loop thread only; the type itself is
/// `SendableMetatype` so that the transport may create one inside work it sends to the loop.
package protocol SSECurl: AnyObject, SendableMetatype {
    /// Where the transfer's callbacks go (set by the connection before ``begin(_:)``; not
    /// retained while no transfer is attached).
    var callbacks: (any SSECurlCallbacks)? { get set }

    /// Creates the handle, sets every option for `hop` and attaches it; the error of the
    /// first step that failed.
    func begin(_ hop: SSEHop) -> RealtimeError?

    /// Sends `hop` on the same handle (detached, reset, set up and attached again: its
    /// connection may be reused from the multi handle's cache).
    func redirect(to hop: SSEHop) -> RealtimeError?

    /// Unpauses the transfer (`curl_easy_pause`); curl may deliver the held chunk through
    /// ``SSECurlCallbacks/received(_:_:)`` before this returns.
    func unpause()

    /// Lets curl make progress on overdue work now (after an unpause).
    func kick()

    /// Runs `body` once curl returns from the action in progress (before any completion of
    /// that action is reported).
    func runAfterCurrentAction(_ body: @escaping () -> Void)

    /// The transfer's connection is ready and its request about to go (streams of the origin
    /// waiting for their turn may start).
    func connectionReady()

    /// The final response head arrived (the server accepted the request).
    func responseHeadArrived()

    /// Detaches and frees the handle; no callback comes after it.
    func end()

    /// The status of the response whose head just ended (`CURLINFO_RESPONSE_CODE`).
    var responseStatus: Int { get }

    /// `CURLINFO_HTTP_VERSION` as text ("1.0", "1.1", "2", "3"); nil if curl does not say.
    var httpVersion: String? { get }

    /// The URL curl fetched last (`CURLINFO_EFFECTIVE_URL`), userinfo included; nil if none.
    var effectiveURL: URL? { get }

    /// What the handle knows about a transfer that ended with `code`.
    func result(of code: CURLcode) -> SSETransferResult

    /// The arena block the connections of this loop fill (``SSEArenaCursor``).
    var arenaCursor: SSEArenaCursor { get }
}

/// The libcurl callbacks of one transfer, as the connection receives them. All run on the
/// loop thread, from inside curl (``completed(_:)`` after curl returned).
package protocol SSECurlCallbacks: AnyObject {
    /// `CURLOPT_WRITEFUNCTION`: body bytes. Returns the count consumed, 0 to abort, or
    /// `CURL_WRITEFUNC_PAUSE`.
    func received(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int
    /// `CURLOPT_HEADERFUNCTION`: one header line. Returns 0 to abort.
    func headerLine(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int
    /// `CURLOPT_PREREQFUNCTION`: connected, the request is about to be written.
    func requestStarting()
    /// The transfer is over, with curl's result.
    func completed(_ code: CURLcode)
}
#endif
