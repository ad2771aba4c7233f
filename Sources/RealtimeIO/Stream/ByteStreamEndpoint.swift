@_spi(Transport) import RealtimeCore

/// Where a ``ByteStream`` connects, and how.
package struct ByteStreamEndpoint: Sendable, Hashable {
    /// A DNS name or an IPv4/IPv6 literal (without brackets).
    package var host: String
    /// TCP port, 1–65535.
    package var port: Int
    /// TLS settings; nil for plain TCP.
    package var tls: TLSConfiguration?
    /// Socket options and timeouts.
    package var options: TCPOptions
    /// An HTTP proxy to tunnel through: the stream connects to the proxy, asks it to
    /// `CONNECT` to `host:port` (the proxy resolves `host`), and only then runs TLS, with SNI
    /// and certificate checks against `host`, never the proxy. nil connects directly.
    package var proxy: HTTPProxy?
    /// At most this many streams of the loop may be in their opening phase at once to the
    /// same address and port (RFC 6455 §4.1): from the TCP connect until the owner calls
    /// ``ByteStream/openingEnded()`` or the stream ends. Others wait their turn after DNS, in
    /// arrival order; through a proxy, the host name and port stand for the address. nil
    /// opens at once.
    package var pendingLimit: Int?

    package init(
        host: String, port: Int, tls: TLSConfiguration? = nil, options: TCPOptions = TCPOptions(),
        proxy: HTTPProxy? = nil, pendingLimit: Int? = nil
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.options = options
        self.proxy = proxy
        self.pendingLimit = pendingLimit
    }
}
