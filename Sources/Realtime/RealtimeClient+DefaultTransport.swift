extension RealtimeClient {
    /// The transports of this SDK, picked by the request URL's scheme: `SSETransport` for
    /// `http`/`https` (with ``Configuration/sse``) and `WebSocketTransport` for `ws`/`wss`.
    /// A scheme whose transport is not available on this platform fails the attempt with
    /// `invalidConfiguration` (the client then stops with that error).
    public static func defaultTransportFactory(configuration: Configuration) -> TransportFactory {
        #if os(Linux)
        let sseOptions = configuration.sse
        #endif
        return { request in
            switch transportKind(for: request.url) {
            case .sse:
                #if os(Linux)
                return SSETransport(request: request, options: sseOptions)
                #else
                throw RealtimeError(.invalidConfiguration, detail: "the SSE transport needs Linux in this version")
                #endif
            case .webSocket:
                throw RealtimeError(.invalidConfiguration, detail: "the WebSocket transport is not part of this build yet")
            case nil:
                throw RealtimeError(.unsupportedScheme)
            }
        }
    }
}
