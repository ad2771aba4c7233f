/// The permessage-deflate parameters both sides agreed on (RFC 7692 §7.1).
package struct WebSocketDeflateParameters: Sendable, Hashable {
    /// The server resets its compressor after every message: we may reset our inflater too.
    package var serverNoContextTakeover = false
    /// We must reset our compressor after every message.
    package var clientNoContextTakeover = false
    /// Window (base-2 log) the server compresses with; our inflater needs at least this. Default 15.
    package var serverMaxWindowBits = 15
    /// Largest window we may compress with. Default 15.
    package var clientMaxWindowBits = 15

    package init() {}
}
