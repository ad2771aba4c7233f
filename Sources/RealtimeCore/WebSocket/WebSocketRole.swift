/// Which end of a WebSocket connection a codec serves.
///
/// RFC 6455 §5.1: a client masks every frame it sends and a server never masks. Each side
/// fails the connection (close code 1002) when it receives a frame with the wrong masking.
/// The SDK's transport uses `.client`; the in-repo test server reuses the codec as `.server`.
@usableFromInline package enum WebSocketRole: Sendable, Hashable {
    case client
    case server
}
