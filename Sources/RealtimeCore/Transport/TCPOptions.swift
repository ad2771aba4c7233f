/// TCP settings of a WebSocket connection: Nagle, keepalive, `TCP_USER_TIMEOUT`, read size.
public struct TCPOptions: Sendable, Hashable {
    /// Time allowed for DNS + TCP connect + TLS handshake; nil for no limit (the owner keeps
    /// its own deadline). Default 10 s. Not public: a WebSocket connection is bounded by the
    /// client's ``RealtimeClient/Configuration/connectTimeout``, which covers the handshake too.
    package var connectTimeout: Duration? = .seconds(10)
    /// `TCP_NODELAY`: send small frames at once instead of waiting for Nagle. Default true.
    public var noDelay: Bool = true
    /// TCP keepalive probes, so a half-open connection (peer vanished without FIN/RST) is
    /// eventually detected by the kernel even when nothing is sent. nil disables.
    /// Default: first probe after 30 s idle, then every 10 s, dead after 3 unanswered (with
    /// ``userTimeout`` set, Linux applies that instead of the count).
    public var keepAlive: TCPKeepAlive? = TCPKeepAlive()
    /// `TCP_USER_TIMEOUT`: how long written data may stay unacknowledged before the kernel
    /// drops the connection (Linux). nil keeps the system default (~15 min). Default 30 s.
    ///
    /// It only times data in flight: a connection that only receives is covered once
    /// ``keepAlive`` probes go out, and then this replaces the probe count — the connection
    /// is dropped at the first probe tick at least this long after the last byte received
    /// (defaults: 40 s). A ping or message written into a dead path is dropped this long
    /// after the write (+ the retransmission timer's granularity: 1.0 s → ~1.4 s measured).
    /// A peer that is alive but keeps its window shut is dropped this long after the window
    /// closed; a WebSocket connection's write timeout is kept at most two thirds of it, so
    /// that such a peer ends the connection as `peer_not_reading` rather than `network`.
    public var userTimeout: Duration? = .seconds(30)
    /// Bytes read from the socket per `read(2)` call. Default 64 KiB.
    public var readChunkSize: Int = 64 * 1024

    /// The documented defaults.
    public init() {}
}

/// TCP keepalive probes (`SO_KEEPALIVE`, `TCP_KEEPIDLE`, `TCP_KEEPINTVL`, `TCP_KEEPCNT`), the
/// same settings for both transports (``TCPOptions/keepAlive`` on WebSocket, the SSE
/// transport's `tcpKeepAlive`). The kernel counts in whole seconds: durations are rounded down,
/// to at least 1 s.
public struct TCPKeepAlive: Sendable, Hashable {
    /// Idle time before the first probe (`TCP_KEEPIDLE`). Default 30 s.
    public var idle: Duration
    /// Time between probes (`TCP_KEEPINTVL`). Default 10 s.
    public var interval: Duration
    /// Unanswered probes before the connection is dropped (`TCP_KEEPCNT`). Default 3. With a
    /// `TCP_USER_TIMEOUT` set, Linux applies that instead of the count.
    public var count: Int

    /// Probes after `idle`, every `interval`, `count` of them.
    public init(idle: Duration = .seconds(30), interval: Duration = .seconds(10), count: Int = 3) {
        self.idle = idle
        self.interval = interval
        self.count = count
    }

    /// `idle` in the kernel's unit: whole seconds, at least 1.
    package var idleSeconds: Int32 { Self.seconds(idle) }
    /// `interval` in the kernel's unit: whole seconds, at least 1.
    package var intervalSeconds: Int32 { Self.seconds(interval) }
    /// `count` as the kernel takes it: at least 1.
    package var probeCount: Int32 { Int32(clamping: max(count, 1)) }

    private static func seconds(_ d: Duration) -> Int32 { Int32(clamping: max(d.components.seconds, 1)) }
}
