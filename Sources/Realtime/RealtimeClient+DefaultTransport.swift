extension RealtimeClient {
    /// Picks the transport by the request URL's scheme.
    public static let defaultTransportFactory: TransportFactory = { request in
        switch transportKind(for: request.url) {
        case .sse:
            throw RealtimeError(.invalidConfiguration, detail: "the SSE transport is not part of this build yet")
        case .webSocket:
            throw RealtimeError(.invalidConfiguration, detail: "the WebSocket transport is not part of this build yet")
        case nil:
            throw RealtimeError(.unsupportedScheme)
        }
    }
}
