@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket
extension RealtimeClient {
    /// The transports of this SDK, picked by the request URL's scheme: `SSETransport` for
    /// `http`/`https` (with ``Configuration/sse``) and `WebSocketTransport` for `ws`/`wss`,
    /// on ``Configuration/eventLoop``.
    /// A scheme whose transport is not available on this platform fails the attempt with
    /// `invalidConfiguration` (the client then stops with that error).
    @_spi(Transport)
    public static func defaultTransportFactory(configuration: Configuration) -> TransportFactory {
        #if os(Linux)
        let sseOptions = configuration.sse
        let wsOptions = configuration.webSocket
        let loop = configuration.eventLoop
        #endif
        return { request in
            switch transportKind(for: request.url) {
            case .sse:
                #if os(Linux)
                return SSETransport(request: request, options: sseOptions, eventLoop: loop)
                #else
                throw RealtimeError(.invalidConfiguration, detail: "the SSE transport needs Linux in this version")
                #endif
            case .webSocket:
                #if os(Linux)
                return WebSocketTransport(request: request, options: wsOptions, eventLoop: loop)
                #else
                throw RealtimeError(.invalidConfiguration, detail: "the WebSocket transport needs Linux in this version")
                #endif
            case nil:
                throw RealtimeError(.unsupportedScheme)
            }
        }
    }
}
