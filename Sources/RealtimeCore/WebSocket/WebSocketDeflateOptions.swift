/// What the client offers for permessage-deflate (RFC 7692 §7.1), and how it compresses.
///
/// The defaults build the plainest useful offer, `permessage-deflate; client_max_window_bits`:
/// both directions keep their LZ77 context between messages (the best ratio for a feed of
/// similar messages), and the server may shrink our window to save its memory. The transport
/// (`RealtimeWebSocket`) inflates RSV1 messages and deflates outgoing ones with zlib.
public struct WebSocketDeflateOptions: Sendable, Hashable {
    /// Ask the server not to keep its compression context between messages (§7.1.1.1): costs
    /// ratio, lets both sides drop the inflate window between messages. Default false.
    public var serverNoContextTakeover: Bool = false
    /// Tell the server we will not keep ours (§7.1.1.2); we then reset our compressor after
    /// every message whatever the server answers. Default false.
    public var clientNoContextTakeover: Bool = false
    /// Largest LZ77 window (8–15, as a base-2 log) the server may use; nil leaves it at 15 (§7.1.2.1).
    public var serverMaxWindowBits: Int?
    /// Whether we accept a `client_max_window_bits` in the response, and optionally the limit we
    /// ask for (9–15) (§7.1.2.2). `.supported` (the default) sends the parameter without a value.
    ///
    /// 8 is not allowed here: zlib cannot deflate raw data with a 256-byte window (it silently
    /// uses 512, which a strict peer would reject), so an offer of 8 could never be honoured.
    /// If a server answers `client_max_window_bits=8` to a `.supported` offer, the client
    /// sends its messages uncompressed (RSV1 clear, always allowed by §6) rather than break
    /// the agreement.
    public var clientMaxWindowBits: ClientWindowBits = .supported
    /// zlib compression level for outgoing messages, 0–9 (1 fastest, 9 smallest; 0 stores).
    /// A local choice, not negotiated. Default 6 (zlib's default).
    public var compressionLevel: Int = 6
    /// The LZ77 window our compressor uses (9–15, as a base-2 log), or the agreed
    /// `client_max_window_bits` if that is smaller. A local choice: a compressor may always
    /// use less window than the receiver allows. Default 13.
    ///
    /// With ``compressionMemoryLevel`` it sets what a sending connection keeps between
    /// messages under context takeover: `2^(bits + 2) + 2^(memoryLevel + 9)` bytes plus about
    /// 6 KiB, so 46 KiB at 13 and 4 against 262 KiB at zlib's 15 and 8. Measured on JSON
    /// messages of ~100 bytes and text of ~460: 13 bits makes the output 1.08× as large as
    /// 15 bits, 12 bits 1.11–1.13×.
    public var compressionWindowBits: Int = 13
    /// zlib `memLevel` of our compressor (1–9): the size of its match-finding hash. A local
    /// choice. Default 4 (8 KiB), within 0.1% of the ratio of zlib's default 8 (128 KiB) on the
    /// same corpora.
    public var compressionMemoryLevel: Int = 4

    /// What the offer says about our (the client's) compression window (`client_max_window_bits`).
    public enum ClientWindowBits: Sendable, Hashable {
        /// Do not send the parameter: the server may not limit our window.
        case notOffered
        /// Send it without a value: the server may choose a limit.
        case supported
        /// Send it with this value (9–15).
        case bits(Int)
    }

    /// The documented defaults.
    public init() {}

    /// The offer's `Sec-WebSocket-Extensions` element.
    package var offer: WebSocketExtension {
        var e = WebSocketExtension(name: "permessage-deflate")
        if serverNoContextTakeover { e.parameters.append(.init(name: "server_no_context_takeover")) }
        if clientNoContextTakeover { e.parameters.append(.init(name: "client_no_context_takeover")) }
        if let bits = serverMaxWindowBits { e.parameters.append(.init(name: "server_max_window_bits", value: String(bits))) }
        switch clientMaxWindowBits {
        case .notOffered: break
        case .supported: e.parameters.append(.init(name: "client_max_window_bits"))
        case .bits(let bits): e.parameters.append(.init(name: "client_max_window_bits", value: String(bits)))
        }
        return e
    }

    /// Checks the window sizes (server 8–15, client and compressor 9–15), the compression level
    /// (0–9) and the memory level (1–9).
    package func validate() throws(RealtimeError) {
        if let b = serverMaxWindowBits, !(8...15).contains(b) {
            throw RealtimeError(.invalidConfiguration, detail: "server_max_window_bits must be 8-15 (RFC 7692 §7.1.2.1)")
        }
        if case .bits(let b) = clientMaxWindowBits, !(9...15).contains(b) {
            throw RealtimeError(
                .invalidConfiguration,
                detail: "client_max_window_bits must be 9-15 (RFC 7692 §7.1.2.2 allows 8, which zlib cannot deflate with)")
        }
        if !(0...9).contains(compressionLevel) {
            throw RealtimeError(.invalidConfiguration, detail: "compressionLevel must be 0-9")
        }
        if !(9...15).contains(compressionWindowBits) {
            throw RealtimeError(.invalidConfiguration, detail: "compressionWindowBits must be 9-15")
        }
        if !(1...9).contains(compressionMemoryLevel) {
            throw RealtimeError(.invalidConfiguration, detail: "compressionMemoryLevel must be 1-9")
        }
    }

    /// How our compressor runs under what was agreed.
    package struct Compressor: Sendable, Hashable {
        package var windowBits: Int
        package var memoryLevel: Int
        package var level: Int
        package var noContextTakeover: Bool

        package init(windowBits: Int, memoryLevel: Int, level: Int, noContextTakeover: Bool) {
            self.windowBits = windowBits
            self.memoryLevel = memoryLevel
            self.level = level
            self.noContextTakeover = noContextTakeover
        }
    }

    /// Our compressor for `agreed`: our window, or the agreed limit if smaller (the server
    /// inflates with the agreed window, which covers any smaller one); a reset after every
    /// message when the server asks or when our offer said so (§7.1.1.2). nil when the
    /// agreed window is 8 bits, which zlib cannot deflate with: messages then go out
    /// uncompressed (RSV1 clear, always allowed by §6).
    package func compressor(for agreed: WebSocketDeflateParameters) -> Compressor? {
        guard agreed.clientMaxWindowBits >= 9 else { return nil }
        return Compressor(
            windowBits: min(agreed.clientMaxWindowBits, compressionWindowBits), memoryLevel: compressionMemoryLevel,
            level: compressionLevel, noContextTakeover: agreed.clientNoContextTakeover || clientNoContextTakeover)
    }

    /// Validates the server's accepted permessage-deflate element against this offer
    /// (RFC 7692 §5, §7.1) and returns the agreed parameters. Throws a `handshake` error — the
    /// client must fail the connection — on an unknown or repeated parameter, a parameter with
    /// an invalid value, a `client_max_window_bits` we did not offer, a window larger than we
    /// asked for, or a missing `server_no_context_takeover` / `server_max_window_bits` that our
    /// offer required.
    package func negotiate(_ response: WebSocketExtension) throws(RealtimeError) -> WebSocketDeflateParameters {
        func fail(_ why: String) -> RealtimeError {
            RealtimeError(.handshake, detail: "permessage-deflate response: \(why) (RFC 7692 §7.1)")
        }
        func bits(_ p: WebSocketExtension.Parameter) throws(RealtimeError) -> Int {
            // 1*DIGIT without leading zeros, 8–15 (§7.1.2.1).
            guard let v = p.value, !v.hasPrefix("0"), v.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let n = Int(v), (8...15).contains(n) else { throw fail("invalid \(p.name)") }
            return n
        }
        var agreed = WebSocketDeflateParameters()
        var seen = Set<String>()
        for p in response.parameters {
            guard seen.insert(p.name).inserted else { throw fail("repeated \(p.name)") }
            switch p.name {
            case "server_no_context_takeover":
                guard p.value == nil else { throw fail("value on server_no_context_takeover") }
                agreed.serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard p.value == nil else { throw fail("value on client_no_context_takeover") }
                agreed.clientNoContextTakeover = true
            case "server_max_window_bits":
                let n = try bits(p)
                if let limit = serverMaxWindowBits, n > limit { throw fail("server_max_window_bits above our offer") }
                agreed.serverMaxWindowBits = n
            case "client_max_window_bits":
                let n = try bits(p)
                switch clientMaxWindowBits {
                case .notOffered: throw fail("client_max_window_bits we did not offer")
                case .supported: break
                case .bits(let limit): if n > limit { throw fail("client_max_window_bits above our offer") }
                }
                agreed.clientMaxWindowBits = n
            default:
                throw fail("unknown parameter \(p.name)")
            }
        }
        if serverNoContextTakeover && !agreed.serverNoContextTakeover { throw fail("server_no_context_takeover missing") }
        if serverMaxWindowBits != nil && !seen.contains("server_max_window_bits") { throw fail("server_max_window_bits missing") }
        if case .bits(let limit) = clientMaxWindowBits, !seen.contains("client_max_window_bits") {
            // We asked the server to accept a limit on our window; no answer means it did not.
            agreed.clientMaxWindowBits = limit
        }
        return agreed
    }
}
