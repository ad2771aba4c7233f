@_spi(Transport) import RealtimeCore

/// The client side of an HTTP `CONNECT` tunnel (RFC 9110 §9.3.6), without I/O: the request
/// to send to the proxy, then its answer, parsed until the head is complete.
///
/// On a 2xx the tunnel is open and every later byte belongs to the origin (`leftover` holds
/// those that came with the answer). Anything else, or a malformed answer, is a `proxy`
/// error; a 407 names the authentication scheme asked for, never a credential.
struct ProxyTunnel {
    enum Outcome {
        /// The tunnel is up; `leftover` are the origin's first bytes.
        case established(leftover: [UInt8])
        case refused(RealtimeError)
    }

    let proxy: HTTPProxy
    /// The `CONNECT` request for the origin, with `Proxy-Authorization` when the proxy URL
    /// had credentials (a secret: never logged).
    let request: [UInt8]
    private var parser = HTTPResponseHeadParser()

    init(proxy: HTTPProxy, host: String, port: Int) {
        self.proxy = proxy
        self.request = proxy.connectRequest(host: host, port: port)
    }

    /// Feeds the proxy's answer; nil until the head is complete.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) -> Outcome? {
        let parsed: (head: HTTPResponseHead, rest: [UInt8])?
        do {
            parsed = try parser.parse(bytes)
        } catch {
            return .refused(RealtimeError(.proxy, detail: "malformed answer to CONNECT: \(error.detail ?? error.code.description)"))
        }
        guard let (head, rest) = parsed else { return nil }
        if let refusal = HTTPProxy.tunnelError(for: head) { return .refused(refusal) }
        return .established(leftover: rest)
    }

    /// The proxy closed the connection before its answer was complete.
    static let closedBeforeAnswer = RealtimeError(.network, detail: "the proxy closed the connection before answering CONNECT")
}
