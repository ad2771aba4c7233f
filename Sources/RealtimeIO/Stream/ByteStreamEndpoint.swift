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

    package init(
        host: String, port: Int, tls: TLSConfiguration? = nil, options: TCPOptions = TCPOptions(),
        proxy: HTTPProxy? = nil
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.options = options
        self.proxy = proxy
    }
}
