#if os(Linux)
import CLinux
import Glibc
@_spi(Transport) import RealtimeCore

/// A ``NetworkMonitor`` over a NETLINK_ROUTE socket (rtnetlink(7)) registered on an
/// ``EventLoop``: it subscribes to link, IPv4/IPv6 address and route changes and, after each
/// burst of changes (coalesced for ``settleDelay``), re-reads the tables and recomputes the
/// status with `NetlinkRouteSnapshot`'s rule (an interface up and running, not loopback,
/// with a global address and a route). Reachability is `unreachable` when no interface is
/// usable; every change to the interfaces that count bumps `pathGeneration`.
///
/// Use ``shared`` for the whole process (one socket for every client), or a private one
/// restricted to some ``interfaces`` (e.g. `["wlan0"]`, or a veth in tests).
@_spi(Transport)
public final class LinuxNetworkMonitor: NetworkMonitor {
    /// One monitor for the process on ``EventLoop/shared``, all interfaces: the shared
    /// loop's ``EventLoop/networkMonitor``, which clients use by default.
    public static var shared: LinuxNetworkMonitor { EventLoop.shared.networkMonitor }

    /// Interfaces that count (nil: every non-loopback interface).
    public let interfaces: Set<String>?
    /// How long a burst of netlink notifications may take before the tables are re-read
    /// (link down removes addresses and routes one message at a time). Default 20 ms.
    public let settleDelay: Duration
    /// The loop that reads the netlink socket and calls the observers.
    public let eventLoop: EventLoop

    private let status: LockedValue<NetworkStatus>
    private let observers = NetworkObservers()
    private struct Watch {
        /// The subscription socket: closed by the teardown, or when the watch is released
        /// with a loop that stopped before running it.
        var socket: OwnedDescriptor?
        var registration: IORegistration?
        var pending: TimerHandle?
        var fingerprint = ""
        var stopped = false
    }
    private let watch: LoopBound<Watch, EventLoop>

    /// Reads the tables once (so ``currentStatus`` is known at once), then watches for
    /// changes on `eventLoop`. If netlink is unavailable the status stays `unknown`
    /// (which never blocks a client). The subscription socket and the first read are made
    /// on the calling thread, so in its network namespace; ``EventLoop/networkMonitor``
    /// makes one on the loop's thread.
    public init(eventLoop: EventLoop = .shared, interfaces: Set<String>? = nil, settleDelay: Duration = .milliseconds(20)) {
        self.interfaces = interfaces
        self.settleDelay = settleDelay
        self.eventLoop = eventLoop
        self.watch = LoopBound(Watch(), loop: eventLoop)
        var initial = NetworkStatus(reachability: .unknown)
        var fingerprint = ""
        if let snapshot = Self.readTables() {
            initial.reachability = snapshot.usableInterfaces(among: interfaces).isEmpty ? .unreachable : .reachable
            fingerprint = snapshot.fingerprint(among: interfaces)
        }
        self.status = LockedValue(initial)
        let fd = Self.openSubscription()
        // Owned from here: closed when released if the loop never runs the task below.
        let socket = fd >= 0 ? OwnedDescriptor(fd) : nil
        let initialFingerprint = fingerprint
        eventLoop.execute { [watch, weak self] in
            watch.value.fingerprint = initialFingerprint
            guard let socket else { return }
            guard !watch.value.stopped else { socket.close(); return }
            watch.value.socket = socket
            watch.value.registration = eventLoop.register(fd: socket.fd, interest: .readable) { [weak self] _ in
                self?.notified()
            }
        }
    }

    deinit {
        let watch = self.watch
        let loop = eventLoop
        loop.execute { Self.tearDown(watch) }
    }

    public var currentStatus: NetworkStatus { status.withLock { $0 } }

    public func observe(_ handler: @escaping @Sendable (NetworkStatus) -> Void) -> NetworkObservation {
        observers.add(handler)
    }

    public func cancel(_ observation: NetworkObservation) {
        observers.remove(observation)
    }

    /// Stops watching and closes the socket (the status freezes). Idempotent.
    public func stop() {
        eventLoop.execute { [watch] in Self.tearDown(watch) }
    }

    /// Reads the tables now and publishes a change if any (normally driven by netlink).
    public func refresh() {
        eventLoop.execute { [weak self] in self?.recompute() }
    }

    // MARK: Loop thread

    /// The subscription socket's descriptor, -1 when there is none (on the loop thread).
    package var subscriptionDescriptor: Int32 { watch.value.socket?.fd ?? -1 }

    private static func tearDown(_ watch: LoopBound<Watch, EventLoop>) {
        watch.value.stopped = true
        if let t = watch.value.pending { watch.loop.cancel(t) }
        if let r = watch.value.registration { watch.loop.deregister(r) }
        watch.value.socket?.close()
        watch.value = Watch(stopped: true)
    }

    private func notified() {
        var buffer = [UInt8](repeating: 0, count: 16384)
        // Drain: the messages only say "something changed"; the tables are re-read after
        // the burst settles. ENOBUFS (overflow) means the same.
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(watch.value.socket?.fd ?? -1, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { continue }
            if n < 0 && rt_errno() == EINTR { continue }
            break
        }
        guard watch.value.pending == nil else { return }
        watch.value.pending = eventLoop.schedule(after: settleDelay) { [weak self] in
            guard let self else { return }
            self.watch.value.pending = nil
            self.recompute()
        }
    }

    private func recompute() {
        guard !watch.value.stopped, let snapshot = Self.readTables() else { return }
        let reachable = !snapshot.usableInterfaces(among: interfaces).isEmpty
        let fingerprint = snapshot.fingerprint(among: interfaces)
        let changed = fingerprint != watch.value.fingerprint
        watch.value.fingerprint = fingerprint
        let next: NetworkStatus? = status.withLock { s in
            let r: NetworkStatus.Reachability = reachable ? .reachable : .unreachable
            guard changed || r != s.reachability else { return nil }
            s.reachability = r
            s.pathGeneration &+= 1
            return s
        }
        if let next { observers.publish(next) }
    }

    // MARK: Netlink sockets

    /// A non-blocking socket subscribed to link, address and route groups; -1 on failure.
    private static func openSubscription() -> Int32 {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard fd >= 0 else { return -1 }
        var addr = sockaddr_nl()
        addr.nl_family = sa_family_t(AF_NETLINK)
        // RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE
        addr.nl_groups = 0x1 | 0x10 | 0x40 | 0x100 | 0x400
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        if ok != 0 {
            close(fd)
            return -1
        }
        return fd
    }

    /// Dumps links, addresses and routes on a private blocking socket (bounded by a 1 s
    /// receive timeout); nil when netlink is unavailable.
    package static func readTables() -> NetlinkRouteSnapshot? {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var snapshot = NetlinkRouteSnapshot()
        // RTM_GETLINK (ifinfomsg, 16 bytes), RTM_GETADDR (ifaddrmsg, 8), RTM_GETROUTE (rtmsg, 12).
        for (seq, (type, bodySize)) in [(UInt16(18), 16), (22, 8), (26, 12)].enumerated() {
            guard dump(fd, type: type, bodySize: bodySize, seq: UInt32(seq + 1), into: &snapshot) else { return nil }
        }
        return snapshot
    }

    private static func dump(_ fd: Int32, type: UInt16, bodySize: Int, seq: UInt32, into snapshot: inout NetlinkRouteSnapshot) -> Bool {
        let length = 16 + bodySize
        var request = [UInt8](repeating: 0, count: length)
        func put32(_ v: UInt32, _ at: Int) { withUnsafeBytes(of: v) { for i in 0..<4 { request[at + i] = $0[i] } } }
        func put16(_ v: UInt16, _ at: Int) { withUnsafeBytes(of: v) { for i in 0..<2 { request[at + i] = $0[i] } } }
        put32(UInt32(length), 0)
        put16(type, 4)
        put16(0x1 | 0x300, 6)  // NLM_F_REQUEST | NLM_F_DUMP
        put32(seq, 8)
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard sent == length else { return false }
        var buffer = [UInt8](repeating: 0, count: 32768)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && rt_errno() == EINTR { continue }
            guard n > 0 else { return false }
            switch snapshot.apply(Array(buffer[0..<n])) {
            case .more: continue
            case .done: return true
            case .failed: return false
            }
        }
    }
}
#endif
