#if os(Linux)
import CCurl
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The real ``SSECurl``: one curl easy handle on the ``EventLoop``'s ``CurlMultiDriver``, its
/// header list and its error buffer.
///
/// curl's callbacks reach this object (unretained: it outlives its handle, which ``end()``
/// frees) and go on to ``callbacks``. While a transfer is attached, the driver's completion
/// holds the connection, so it cannot go away under curl.
///
/// Loop thread only.
final class CurlEasyTransfer: SSECurl {
    let request: TransportRequest
    let options: SSEOptions
    let loop: EventLoop
    /// Unretained: the connection owns this object and outlives its handle.
    unowned(unsafe) var callbacks: (any SSECurlCallbacks)?
    private var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// curl's message for the last failure (`CURLOPT_ERRORBUFFER`, `CURL_ERROR_SIZE` bytes).
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init(request: TransportRequest, options: SSEOptions, loop: EventLoop) {
        self.request = request
        self.options = options
        self.loop = loop
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        // end() normally freed the handle. One still here is detached: while attached, the
        // driver's completion holds the connection that owns this object. That happens when
        // the driver itself goes (its loop torn down with transfers running), which removes
        // its handles from the multi handle first; free what is left, so nothing leaks.
        if let easy { curl_easy_cleanup(easy) }
        freeHeaderList()
        errorBuffer.deallocate()
    }

    var arenaCursor: SSEArenaCursor { SSEArenaCursor.on(loop) }

    func begin(_ hop: SSEHop) -> RealtimeError? {
        guard CurlGlobal.ensureInitialized(), let easy = curl_easy_init() else {
            return RealtimeError(.internal, detail: "curl_easy_init failed")
        }
        self.easy = easy
        return setUpAndAttach(easy, hop)
    }

    /// `https://host:port` when the transfer may be an HTTP/2 stream (see
    /// `CurlMultiDriver.add(_:multiplexedOrigin:completion:)`), else nil.
    static func multiplexedOrigin(_ url: URL, preferHTTP2: Bool) -> String? {
        guard preferHTTP2, CurlGlobal.supportsHTTP2, url.scheme?.lowercased() == "https", let host = url.host?.lowercased() else {
            return nil
        }
        return "https://\(host):\(url.port ?? 443)"
    }

    func connectionReady() {
        guard let easy else { return }
        CurlMultiDriver.on(loop).transferConnected(easy)
    }

    func responseHeadArrived() {
        guard let easy else { return }
        CurlMultiDriver.on(loop).responseHeadArrived(easy)
    }

    func redirect(to hop: SSEHop) -> RealtimeError? {
        guard let easy else { return nil }
        CurlMultiDriver.on(loop).remove(easy)
        curl_easy_reset(easy)
        freeHeaderList()
        return setUpAndAttach(easy, hop)
    }

    private func setUpAndAttach(_ easy: UnsafeMutableRawPointer, _ hop: SSEHop) -> RealtimeError? {
        if let problem = configure(easy, hop) { return problem }
        guard let target = callbacks else { preconditionFailure("CurlEasyTransfer attached without callbacks") }
        let origin = Self.multiplexedOrigin(hop.url, preferHTTP2: options.preferHTTP2)
        guard CurlMultiDriver.on(loop).add(easy, multiplexedOrigin: origin, completion: { code in target.completed(code) }) else {
            return RealtimeError(.internal, detail: "curl_multi_add_handle failed")
        }
        return nil
    }

    /// Sets every option of `hop` on `easy`; returns an error for a setting curl refuses.
    private func configure(_ easy: UnsafeMutableRawPointer, _ hop: SSEHop) -> RealtimeError? {
        var o = SSECurlOptions(easy: easy)
        o.transfer(url: hop.url, connectTimeout: request.connectTimeout, receiveBufferSize: options.receiveBufferSize)
        o.errorBuffer(errorBuffer)
        o.callbacks(context: Unmanaged.passUnretained(self).toOpaque())
        o.methodAndBody(hop)
        headerList = o.headers(hop, lastEventID: request.lastEventID, userAgent: options.userAgent)
        o.contentEncoding()
        o.httpVersion(for: hop.url, preferHTTP2: options.preferHTTP2)
        o.proxy(options.proxy)
        o.tcp(keepAlive: options.tcpKeepAlive, userTimeout: options.tcpUserTimeout)
        o.tls(request.tls)
        return o.failure
    }

    func unpause() {
        guard let easy else { return }
        _ = curl_easy_pause(easy, rt_curlpause_cont())
    }

    func kick() {
        CurlMultiDriver.on(loop).kick()
    }

    func runAfterCurrentAction(_ body: @escaping () -> Void) {
        CurlMultiDriver.on(loop).runAfterCurrentAction(body)
    }

    func end() {
        if let easy {
            CurlMultiDriver.on(loop).remove(easy)
            curl_easy_cleanup(easy)
            self.easy = nil
        }
        freeHeaderList()
    }

    private func freeHeaderList() {
        if let headerList {
            curl_slist_free_all(headerList)
            self.headerList = nil
        }
    }

    // MARK: What the handle knows

    var responseStatus: Int {
        var status = 0
        if let easy { _ = rt_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) }
        return status
    }

    var httpVersion: String? {
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

    var effectiveURL: URL? {
        var p: UnsafeMutablePointer<CChar>?
        guard let easy, rt_easy_getinfo_str(easy, CURLINFO_EFFECTIVE_URL, &p) == CURLE_OK, let p else { return nil }
        return URL(string: String(cString: p))
    }

    func result(of code: CURLcode) -> SSETransferResult {
        guard code != CURLE_OK else { return SSETransferResult() }
        var f = CurlErrorMapping.Failure(code: code, stage: .beforeRequest)
        var nothingSent = false
        if let easy {
            _ = rt_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &f.proxyStatus)
            var value = 0
            if rt_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &value) == CURLE_OK { f.osErrno = Int32(truncatingIfNeeded: value) }
            if rt_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &value) == CURLE_OK { f.verifyResult = value }
            // curl builds the request after the pre-request callback, so a request it refused
            // to build sent nothing.
            var sent = 0
            if code == CURLE_OUT_OF_MEMORY, rt_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &sent) == CURLE_OK, sent == 0 {
                nothingSent = true
            }
        }
        f.message = URLRedaction.redacted(String(cString: errorBuffer))
        return SSETransferResult(failure: f, nothingSent: nothingSent)
    }
}

@available(*, unavailable)
extension CurlEasyTransfer: Sendable {}
#endif
