#if os(Linux)
import CCurl
import COpenSSL
import Glibc

/// Drives one curl multi handle from an ``EventLoop`` with `curl_multi_socket_action`.
///
/// curl tells the driver which sockets to watch (`CURLMOPT_SOCKETFUNCTION`) and when to
/// call back (`CURLMOPT_TIMERFUNCTION`); the driver maps both onto loop registrations and
/// a loop timer, so any number of transfers share the loop's single thread.
///
/// **Thread rule:** loop-thread only, like the loop's own registration API. There is one
/// driver per loop (``on(_:)``). ``remove(_:)`` must not be called from inside a curl
/// callback (write/header/…); defer it with `EventLoop/execute(_:)` or do it from the
/// completion handler, which runs after curl has returned.
package final class CurlMultiDriver {
    /// The raw multi handle (for options such as `CURLMOPT_MAX_HOST_CONNECTIONS`).
    package let multi: UnsafeMutableRawPointer
    private let loop: EventLoop
    private var sockets = CurlSocketTable<IORegistration>()
    private var timer: TimerHandle?
    private var completions: [UnsafeMutableRawPointer: (CURLcode) -> Void] = [:]
    private var afterAction: [() -> Void] = []
    /// Handles in curl's multi handle (the others wait for their turn in `admission`).
    private var attached: Set<UnsafeMutableRawPointer> = []
    /// Turn-taking by ticket, not by handle: a freed handle's address may come back for
    /// another transfer while a decision about the first is pending.
    private var admission = HTTP2Admission<Int>()
    private var nextTicket = 0
    private var ticketOf: [UnsafeMutableRawPointer: Int] = [:]
    private var transferOf: [Int: UnsafeMutableRawPointer] = [:]
    /// The timers that start a waiting transfer after HTTP2Admission.maxHold.
    private var holds: [UnsafeMutableRawPointer: TimerHandle] = [:]

    /// The driver of `loop`, created on first use. Loop thread only.
    package static func on(_ loop: EventLoop) -> CurlMultiDriver {
        precondition(loop.inEventLoop, "CurlMultiDriver.on must be called on the loop thread")
        if let d = loop.state.curlDriver { return d }
        let d = CurlMultiDriver(loop: loop)
        loop.state.curlDriver = d
        return d
    }

    private init(loop: EventLoop) {
        precondition(CurlGlobal.ensureInitialized(), "curl_global_init failed")
        guard let m = rt_multi_init_cloexec() else { preconditionFailure("curl_multi_init failed") }
        self.multi = m
        self.loop = loop
        // Unretained: the loop owns the driver and outlives every callback (cleanup below
        // runs on the loop thread before the driver is freed).
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = rt_multi_setopt_socketfn(m) { _, fd, what, userp, _ in
            Unmanaged<CurlMultiDriver>.fromOpaque(userp!).takeUnretainedValue().socketChanged(fd, what)
            return 0
        }
        _ = rt_multi_setopt_ptr(m, CURLMOPT_SOCKETDATA, me)
        _ = rt_multi_setopt_timerfn(m) { _, timeoutMs, userp in
            Unmanaged<CurlMultiDriver>.fromOpaque(userp!).takeUnretainedValue().timerChanged(timeoutMs)
            return 0
        }
        _ = rt_multi_setopt_ptr(m, CURLMOPT_TIMERDATA, me)
        // HTTP/2 streams to one origin share a connection; how many a connection carries is
        // the server's SETTINGS_MAX_CONCURRENT_STREAMS (curl's own cap, 100 by default, is
        // lifted so that the server's figure decides when another connection opens).
        _ = rt_multi_setopt_long(m, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = rt_multi_setopt_long(m, CURLMOPT_MAX_CONCURRENT_STREAMS, Int(Int32.max))
    }

    deinit {
        for easy in attached { curl_multi_remove_handle(multi, easy) }
        curl_multi_cleanup(multi)
        if let timer { loop.cancel(timer) }
        for r in sockets.registrations { loop.deregister(r) }
        for (_, hold) in holds { loop.cancel(hold) }
    }

    /// Number of transfers attached or waiting their turn (for tests and diagnostics).
    package var activeTransfers: Int { completions.count }

    /// Attaches an easy handle; `completion` runs on the loop thread once the transfer
    /// ends by itself (with curl's result). It does not run after ``remove(_:)``.
    /// Returns false (and does not attach) if curl refuses the handle.
    ///
    /// `multiplexedOrigin` names the origin of a transfer that may be an HTTP/2 stream: it
    /// then starts when ``HTTP2Admission`` gives it its turn (at once, once earlier streams
    /// of the origin have their response heads, reported with ``responseHeadArrived(_:)``,
    /// or after ``HTTP2Admission/maxHold``), so that the origin's streams pack onto few
    /// connections.
    @discardableResult
    package func add(_ easy: UnsafeMutableRawPointer, multiplexedOrigin: String? = nil, completion: @escaping (CURLcode) -> Void) -> Bool {
        precondition(loop.inEventLoop, "CurlMultiDriver.add must be called on the loop thread")
        guard let multiplexedOrigin else {
            guard attach(easy) else { return false }
            completions[easy] = completion
            return true
        }
        completions[easy] = completion
        let ticket = nextTicket
        nextTicket += 1
        ticketOf[easy] = ticket
        transferOf[ticket] = easy
        let starting = admission.submit(ticket, origin: multiplexedOrigin)
        if starting.contains(ticket), !attach(easy) {
            completions[easy] = nil
            forget(easy)
            return false
        }
        if !starting.contains(ticket) {
            // Waits its turn, for HTTP2Admission.maxHold at most.
            holds[easy] = loop.schedule(after: HTTP2Admission<Int>.maxHold) { [unowned self] in
                self.holds[easy] = nil
                self.start(self.admission.release(ticket))
            }
        }
        start(starting.filter { $0 != ticket })
        return true
    }

    /// Detaches an easy handle (the transfer stops; its connection is closed or cached), or
    /// drops it from the queue of its origin. The caller then owns the handle again and
    /// frees it with `curl_easy_cleanup`.
    package func remove(_ easy: UnsafeMutableRawPointer) {
        precondition(loop.inEventLoop, "CurlMultiDriver.remove must be called on the loop thread")
        guard completions.removeValue(forKey: easy) != nil else { return }
        if let hold = holds.removeValue(forKey: easy) { loop.cancel(hold) }
        if attached.remove(easy) != nil { curl_multi_remove_handle(multi, easy) }
        forget(easy)
    }

    /// Ends `easy`'s turn-taking: its ticket is spent, and whose turn came starts.
    private func forget(_ easy: UnsafeMutableRawPointer) {
        guard let ticket = ticketOf.removeValue(forKey: easy) else { return }
        transferOf[ticket] = nil
        start(admission.ended(ticket))
    }

    /// The transfer's connection is ready and its request about to go (libcurl's pre-request
    /// callback): whether it negotiated `h2` tells whether its origin's transfers wait their
    /// turn (they start after the action in progress; curl refuses changes from callbacks).
    package func transferConnected(_ easy: UnsafeMutableRawPointer) {
        precondition(loop.inEventLoop, "CurlMultiDriver.transferConnected must be called on the loop thread")
        guard let ticket = ticketOf[easy] else { return }
        startAfterAction(admission.negotiated(ticket, multiplexed: Self.negotiatedHTTP2(easy)))
    }

    /// The transfer's final response head arrived (the server accepted its stream): streams
    /// of its origin waiting for their turn may start.
    package func responseHeadArrived(_ easy: UnsafeMutableRawPointer) {
        precondition(loop.inEventLoop, "CurlMultiDriver.responseHeadArrived must be called on the loop thread")
        guard let ticket = ticketOf[easy] else { return }
        var connects = 0
        let opened = rt_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK && connects > 0
        startAfterAction(admission.answered(ticket, connection: Self.address(of: easy), openedConnection: opened))
    }

    private func startAfterAction(_ tickets: [Int]) {
        guard !tickets.isEmpty else { return }
        afterAction.append { [unowned self] in self.start(tickets) }
    }

    /// Whether the transfer's TLS connection negotiated `h2` (ALPN), read from OpenSSL.
    private static func negotiatedHTTP2(_ easy: UnsafeMutableRawPointer) -> Bool {
        var raw: UnsafeMutableRawPointer?
        guard rt_easy_getinfo_ptr(easy, CURLINFO_TLS_SSL_PTR, &raw) == CURLE_OK, let raw else { return false }
        let session = raw.assumingMemoryBound(to: curl_tlssessioninfo.self).pointee
        guard session.backend == CURLSSLBACKEND_OPENSSL, let ssl = session.internals else { return false }
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(OpaquePointer(ssl), &protocolName, &length)
        guard let protocolName, length == 2 else { return false }
        return protocolName[0] == UInt8(ascii: "h") && protocolName[1] == UInt8(ascii: "2")
    }

    private func attach(_ easy: UnsafeMutableRawPointer) -> Bool {
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else { return false }
        attached.insert(easy)
        return true
    }

    /// Attaches transfers whose turn came; one curl refuses ends with `CURLE_FAILED_INIT`.
    private func start(_ tickets: [Int]) {
        for ticket in tickets {
            guard let easy = transferOf[ticket], completions[easy] != nil, !attached.contains(easy) else { continue }
            if let hold = holds.removeValue(forKey: easy) { loop.cancel(hold) }
            guard !attach(easy) else { continue }
            _ = loop.schedule(after: .zero) { [unowned self] in
                guard let easy = self.transferOf[ticket] else { return }
                self.completions[easy]?(CURLE_FAILED_INIT)
            }
        }
    }

    /// Runs `body` once curl returns from the socket action in progress (before any
    /// completion of that action is reported). Transports use it to hand a whole action's
    /// worth of data to their consumer at once instead of once per write callback.
    package func runAfterCurrentAction(_ body: @escaping () -> Void) {
        precondition(loop.inEventLoop, "CurlMultiDriver.runAfterCurrentAction must be called on the loop thread")
        afterAction.append(body)
    }

    /// Lets curl make progress on overdue work now (used after `curl_easy_pause` unpauses
    /// a transfer, whose buffered data curl delivers on its next timeout action).
    package func kick() {
        precondition(loop.inEventLoop, "CurlMultiDriver.kick must be called on the loop thread")
        action(socket: rt_curl_socket_timeout(), mask: 0)
    }

    // MARK: curl callbacks (run inside curl_multi_socket_action, on the loop thread)

    private func socketChanged(_ fd: Int32, _ what: Int32) {
        if what == CURL_POLL_REMOVE {
            if let r = sockets.remove(fd) { loop.deregister(r) }
            return
        }
        var interest: IOInterest = []
        if what & CURL_POLL_IN != 0 { interest.insert(.readable) }
        if what & CURL_POLL_OUT != 0 { interest.insert(.writable) }
        let identity = Self.identity(of: fd)
        switch sockets.announce(fd, identity: identity) {
        case .modify(let r):
            loop.modify(r, interest: interest)
            return
        case .replace(let stale):
            // Closed by curl without a REMOVE; the number now names another socket.
            loop.deregister(stale)
        case .register:
            break
        }
        let registration = loop.register(fd: fd, interest: interest) { [unowned self] ready in
            var mask: Int32 = 0
            if ready.contains(.readable) { mask |= CURL_CSELECT_IN }
            if ready.contains(.writable) { mask |= CURL_CSELECT_OUT }
            if !ready.isDisjoint(with: [.error, .hangup]) { mask |= CURL_CSELECT_ERR }
            self.action(socket: fd, mask: mask)
        }
        sockets.registered(fd, registration, identity: identity)
    }

    /// The open file `fd` names now (nil if `fstat` fails).
    private static func identity(of fd: Int32) -> CurlSocketTable<IORegistration>.Identity? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return .init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    private func timerChanged(_ timeoutMs: Int) {
        if let t = timer {
            loop.cancel(t)
            timer = nil
        }
        guard timeoutMs >= 0 else { return }
        // Never call socket_action from inside curl's callback: a loop timer (even at zero)
        // runs after curl has returned.
        timer = loop.schedule(after: .milliseconds(timeoutMs)) { [unowned self] in
            self.timer = nil
            self.action(socket: rt_curl_socket_timeout(), mask: 0)
        }
    }

    // MARK: Progress

    private func action(socket: Int32, mask: Int32) {
        var running: Int32 = 0
        _ = curl_multi_socket_action(multi, socket, mask, &running)
        runAfterActionBodies()
        drainCompletions()
    }

    private func runAfterActionBodies() {
        while !afterAction.isEmpty {
            let bodies = afterAction
            afterAction.removeAll(keepingCapacity: true)
            for body in bodies { body() }
        }
    }

    private func drainCompletions() {
        var pending: Int32 = 0
        while let msg = curl_multi_info_read(multi, &pending) {
            guard msg.pointee.msg == CURLMSG_DONE, let easy = msg.pointee.easy_handle else { continue }
            let result = rt_curl_msg_result(msg)
            // The handle stays attached until its owner removes it (usually right here, from
            // the completion): curl keeps it out of further socket actions once done.
            guard let completion = completions[easy] else { continue }
            // Read before the completion frees the handle.
            let siblings = Self.losesConnection(result) ? streams(sharingConnectionWith: easy) : []
            completion(result)
            endStreams(siblings, with: result)
        }
    }

    // MARK: Shared HTTP/2 connections

    /// Results that mean the transfer's connection is gone, not only its stream.
    private static func losesConnection(_ result: CURLcode) -> Bool {
        switch result {
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2: return true
        default: return false
        }
    }

    /// The HTTP/2 connection a transfer last used; nil for another protocol.
    private static func connection(of easy: UnsafeMutableRawPointer) -> HTTP2ConnectionID? {
        var version = 0
        guard rt_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK, version == Int(CURL_HTTP_VERSION_2_0)
        else { return nil }
        return address(of: easy)
    }

    /// The TCP connection a transfer last used (its local port and the remote address).
    private static func address(of easy: UnsafeMutableRawPointer) -> HTTP2ConnectionID? {
        var localPort = 0
        var remotePort = 0
        var address: UnsafeMutablePointer<CChar>?
        guard rt_easy_getinfo_long(easy, CURLINFO_LOCAL_PORT, &localPort) == CURLE_OK, localPort > 0,
            rt_easy_getinfo_long(easy, CURLINFO_PRIMARY_PORT, &remotePort) == CURLE_OK,
            rt_easy_getinfo_str(easy, CURLINFO_PRIMARY_IP, &address) == CURLE_OK, let address
        else { return nil }
        return HTTP2ConnectionID(localPort: localPort, remotePort: remotePort, remoteAddress: String(cString: address))
    }

    /// The other HTTP/2 transfers on `easy`'s connection.
    private func streams(sharingConnectionWith easy: UnsafeMutableRawPointer) -> [UnsafeMutableRawPointer] {
        guard let lost = Self.connection(of: easy) else { return [] }
        return attached.filter { $0 != easy && Self.connection(of: $0) == lost }
    }

    /// Ends the transfers whose HTTP/2 connection another transfer found gone, with its
    /// result: libcurl (7.88) reports the loss to the transfer that read it and leaves the
    /// other streams of the connection waiting for up to half a minute, so they are ended
    /// here, and each reconnects on its own (with its own cursor).
    private func endStreams(_ streams: [UnsafeMutableRawPointer], with result: CURLcode) {
        for stream in streams {
            guard let completion = completions[stream] else { continue }
            completion(result)
        }
    }
}

@available(*, unavailable)
extension CurlMultiDriver: Sendable {}
#endif
