#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// Per-connection WebSocket settings (the per-attempt ones — URL, headers, subprotocols,
/// TLS, connect and idle timeouts — come in the ``TransportRequest``).
public struct WebSocketOptions: Sendable {
    /// Largest frame payload accepted from the server, in bytes; a bigger frame closes the
    /// connection with 1009 (RFC 6455 §7.4.1) and ends with `frameTooLarge`.
    /// Default 16 MiB.
    public var maxFrameSize: Int = 16 << 20
    /// Largest message (all fragments together) accepted, in bytes; a bigger one closes
    /// with 1009 and ends with `messageTooLarge`. Messages are delivered whole, so this
    /// bounds the memory one connection can hold. Default 16 MiB.
    public var maxMessageSize: Int = 16 << 20
    /// Dead-peer detection: ping frames (or application heartbeats) after silence, and
    /// the missed-pong limit that ends the attempt with `heartbeatTimeout`; or answers to
    /// the server's pings and a bound on its silence (``HeartbeatPolicy/Mode/responderOnly``).
    /// Default ``HeartbeatPolicy/default`` (ping after 30 s of silence, dead at 90 s).
    public var heartbeat: HeartbeatPolicy = .default
    /// How long the close handshake (RFC 6455 §7.1) may take: after our close frame, the
    /// wait for the server's close frame and for it to close TCP. Default 5 s.
    ///
    /// A connection that fails instead (the server broke the protocol or a limit, RFC 6455
    /// §7.1.7) does not wait for the server: it stops reading at once, sends its close
    /// frame with the error's code, and ends with the error as soon as the kernel took
    /// the frame, or after 1 s (or this timeout, if shorter) when the server does not
    /// read.
    public var closeTimeout: Duration = .seconds(5)
    /// How long bytes we send may wait with the kernel taking none of them: a peer that
    /// keeps its TCP window shut (it talks but never reads) would otherwise leave every
    /// sender waiting for room in the outbound queue, with no error. When no byte has
    /// left for this long while some are waiting, the connection ends with
    /// `peerNotReading` (a best-effort close frame 1008), which the client retries like a
    /// network failure; senders waiting for room or for their write get `notConnected`.
    /// Measured while open, only while bytes are waiting, checked every quarter of it
    /// (so the end comes 1 to 1.25 times this after the last byte left). A slow peer
    /// that reads is never ended by it, however long a large message takes. At most two
    /// thirds of ``TCPOptions/userTimeout`` is applied when `socket` sets one: the kernel
    /// drops a peer whose window stays shut about that long after the window closed, and
    /// would otherwise end the connection first as `network` ("connection timed out").
    /// Default 20 s (with the default 30 s user timeout: `peer_not_reading` 20 to 25 s
    /// after the last byte left); nil disables the check.
    public var writeTimeout: Duration? = .seconds(20)
    /// Messages accepted by `send` and not yet written to the socket; further senders
    /// wait (in call order) until there is room. Default 64.
    public var outboundQueueCapacity: Int = 64
    /// The outbound bound in bytes. Senders also wait while the messages accepted and not
    /// yet written reach this many bytes of payload (a larger message goes alone, when
    /// nothing else is queued). Pongs are not queued per ping: only the latest ping is
    /// answered (RFC 6455 §5.5.3), one pong at a time, so a peer that floods pings and
    /// reads nothing costs no memory; when the pongs it asked for and did not read pass
    /// this bound, the connection ends with `peerNotReading`. Default 16 MiB.
    public var maxOutboundBytes: Int = 16 << 20
    /// permessage-deflate (RFC 7692). Default ``Compression/default``: offered as
    /// `permessage-deflate; client_max_window_bits`; when the server accepts, received
    /// messages are inflated (bounded by ``maxMessageSize``) and sent messages deflated.
    /// A server that does not accept it costs nothing: messages flow uncompressed.
    public var compression: Compression = .default
    /// How the connection reaches the server. Default ``ProxyConfiguration/environment``:
    /// libcurl's rules (`http_proxy` for `ws`, `https_proxy`/`HTTPS_PROXY` for `wss`, then
    /// `all_proxy`/`ALL_PROXY`, minus `no_proxy`/`NO_PROXY`; see `ProxyEnvironment`),
    /// read at every connection attempt. Only `http://` proxies are supported: the
    /// connection opens an HTTP `CONNECT` tunnel (RFC 9110 §9.3.6) to the origin, with
    /// `Proxy-Authorization: Basic` from the proxy URL's userinfo; TLS (`wss`) then runs
    /// end to end through the tunnel, with SNI and certificate checks against the origin
    /// host. The connect timeout covers the tunnel. A refusal (non-2xx) ends the attempt
    /// with a `proxy` error carrying the status (407 and 403 are not retried).
    public var proxy: ProxyConfiguration = .environment
    /// TCP settings: `TCP_NODELAY`, keepalive, `TCP_USER_TIMEOUT`, read size. The connect
    /// timeout is the client's `connectTimeout`, which covers DNS, TCP, TLS, a proxy's tunnel
    /// and the opening handshake.
    public var socket: TCPOptions = TCPOptions()
    /// How many connections may be opening at once to one IP address and port. RFC 6455
    /// §4.1 allows one: a connection (TCP, TLS, the HTTP upgrade) begins only once the one
    /// before it to the same address is established or has failed, so ten thousand clients
    /// started together open one after another, in the order they asked, and never
    /// overflow the server's accept queue. The line is shared by every client on the same
    /// event loop (the shared one by default), whatever their host names; through a
    /// proxy, which resolves the name, the host name and port stand for the address. A
    /// connection that waited gets its whole connect timeout from the end of its wait.
    /// A larger value (a fleet to one distant server) lets that many open together, outside
    /// the RFC's rule; nil removes the limit. Default 1.
    public var maxConnectingPerAddress: Int? = 1

    /// Whether permessage-deflate (RFC 7692) is offered, and with which parameters.
    public enum Compression: Sendable, Hashable {
        /// No extension is offered; compressed frames from the server are a protocol error.
        case disabled
        /// Offer permessage-deflate with these parameters (RFC 7692 §7.1).
        case permessageDeflate(WebSocketDeflateOptions)

        /// permessage-deflate with ``WebSocketDeflateOptions``' defaults: context takeover
        /// both ways; a 13-bit compression window with memory level 4 at zlib level 6 (see
        /// ``WebSocketDeflateOptions/compressionWindowBits``), inflating with the window the
        /// server uses, up to 15 bits.
        public static let `default` = Compression.permessageDeflate(WebSocketDeflateOptions())

        /// The offer to send, nil when disabled.
        var deflateOffer: WebSocketDeflateOptions? {
            if case .permessageDeflate(let options) = self { return options }
            return nil
        }
    }

    /// The documented defaults.
    public init() {}
}
#endif
