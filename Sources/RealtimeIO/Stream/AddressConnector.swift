#if os(Linux)
import CLinux
import Glibc
@_spi(Transport) import RealtimeCore

/// Opens a non-blocking TCP connection to the first of a host's resolved addresses that
/// accepts it, in the resolver's order (RFC 6724), remembering why the last one failed so
/// the final error can say so. The caller owns the descriptor it returns and watches it for
/// writability while a connect is in progress.
struct AddressConnector {
    enum Step {
        /// `connect` completed at once (usual on loopback).
        case connected(Int32)
        /// `connect` is in progress on this descriptor: when it becomes writable (or reports
        /// an error), call ``finishConnect(_:reportedError:)``.
        case inProgress(Int32)
        /// Every address failed; ``lastError`` says how the last one did.
        case exhausted
    }

    private let addresses: [ResolvedAddress]
    private let options: TCPOptions
    /// The name the addresses came from (without IPv6 brackets).
    private let host: String
    private var next = 0
    /// How the last address failed, for the error detail (see ``connectError(_:_:)``).
    private(set) var lastError = ""

    init(addresses: [ResolvedAddress], options: TCPOptions, host: String) {
        self.addresses = addresses
        self.options = options
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
    }

    /// Tries the next addresses until one connects or is in progress.
    mutating func connectNext() -> Step {
        while next < addresses.count {
            let address = addresses[next]
            next += 1
            let s = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if s < 0 {
                lastError = "socket: \(Self.errnoString(rt_errno()))"
                continue
            }
            Self.apply(options, to: s)
            var storage = address.storage
            let rc = withUnsafePointer(to: &storage) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(s, $0, address.length) }
            }
            let err = rc == 0 ? 0 : rt_errno()
            if rc == 0 { return .connected(s) }
            if err == EINPROGRESS { return .inProgress(s) }
            lastError = connectError(address.numericHost, err)
            Glibc.close(s)
        }
        return .exhausted
    }

    /// The in-progress connect on `fd` signalled readiness: true when it succeeded. On
    /// failure the reason is recorded; the caller closes `fd` and calls ``connectNext()``.
    mutating func finishConnect(_ fd: Int32, reportedError: Bool) -> Bool {
        var soError: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
        if soError == 0 && !reportedError { return true }
        lastError = connectError(addresses[next - 1].numericHost, soError)
        return false
    }

    /// `TCP_NODELAY`, keepalive and `TCP_USER_TIMEOUT` as configured.
    static func apply(_ options: TCPOptions, to s: Int32) {
        func set(_ level: Int32, _ name: Int32, _ value: Int32) {
            var v = value
            _ = setsockopt(s, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
        }
        if options.noDelay { set(Int32(IPPROTO_TCP), TCP_NODELAY, 1) }
        if let ka = options.keepAlive {
            set(SOL_SOCKET, SO_KEEPALIVE, 1)
            set(Int32(IPPROTO_TCP), TCP_KEEPIDLE, ka.idleSeconds)
            set(Int32(IPPROTO_TCP), TCP_KEEPINTVL, ka.intervalSeconds)
            set(Int32(IPPROTO_TCP), TCP_KEEPCNT, ka.probeCount)
        }
        if let userTimeout = options.userTimeout {
            let ms = userTimeout.components.seconds * 1000 + userTimeout.components.attoseconds / 1_000_000_000_000_000
            set(Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, Int32(clamping: max(ms, 0)))
        }
    }

    /// Why connecting to `address` failed; the address is named only when it is not the host
    /// itself (a name that resolved to several addresses).
    private func connectError(_ address: String, _ err: Int32) -> String {
        address == host ? Self.errnoString(err) : "\(address): \(Self.errnoString(err))"
    }

    /// A socket error as both transports word it: `strerror` with a lower-case first letter
    /// ("connection refused").
    static func errnoString(_ err: Int32) -> String {
        let text = String(cString: strerror(err))
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
#endif
