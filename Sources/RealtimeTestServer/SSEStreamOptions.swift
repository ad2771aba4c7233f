import RealtimeCore

/// The `/sse` endpoint's parameters, parsed from the query, and the exact bytes it sends.
///
/// Public so a test can compute byte offsets (e.g. where a multi-byte code point sits)
/// from the same renderer the server uses: `SSEStreamOptions(query: q).body(resumingAfter: nil)`.
/// Every parameter is documented in ``TestServer/endpointReference``.
package struct SSEStreamOptions: Sendable, Hashable {
    /// The line ending the stream uses (`line_ending=`).
    package enum LineEnding: String, Sendable, Hashable {
        /// `\n`.
        case lf
        /// `\r\n`.
        case crlf
        /// `\r`.
        case cr
        var bytes: [UInt8] {
            switch self {
            case .lf: [10]
            case .crlf: [13, 10]
            case .cr: [13]
            }
        }
    }

    /// What happens after the last event.
    package enum End: String, Sendable, Hashable {
        /// End the body and close (default).
        case close
        /// Keep the connection open, sending nothing (or `:` comments every `ping_ms`).
        case hold
        /// End the body; a reconnect whose `Last-Event-ID` is the last id gets 204 No Content.
        case noContent = "204"
    }

    /// How the body is framed (`framing=`).
    package enum BodyFraming: String, Sendable, Hashable {
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// No length: the body ends when the connection closes.
        case close
        /// `Content-Length`.
        case length
    }

    /// `count`: number of events (10).
    package var count = 10
    /// `start`: id of the first event (1).
    package var start = 1
    /// `interval_ms`: pause between events, ms (0: one burst).
    package var intervalMilliseconds = 0
    /// `retry`: a `retry:` field sent first, ms.
    package var retry: Int?
    /// `event`: an `event:` field on every event.
    package var eventType: String?
    /// `size`: pad each event's data to this many bytes with `x`.
    package var dataSize: Int?
    /// `utf8=1`: append ``utf8Suffix`` to each event's data.
    package var utf8 = false
    /// `invalid_utf8=1`: append ``invalidUTF8Suffix`` to each event's data.
    package var invalidUTF8 = false
    /// `newline`: the line ending (lf).
    package var lineEnding = LineEnding.lf
    /// `bom=1`: start the body with a UTF-8 BOM.
    package var byteOrderMark = false
    /// `end`: what happens after the last event (close).
    package var end = End.close
    /// `ping_ms`: with `end=hold`, a `:ping` comment every N ms.
    package var pingMilliseconds: Int?
    /// `framing`: chunked, close-delimited or Content-Length (chunked).
    package var framing = BodyFraming.chunked
    /// `cut`: drop the connection after this many body bytes.
    package var cut: Int?
    /// `reset=1`: drop with a TCP RST instead of a FIN.
    package var reset = false
    /// `cuts`: the cut schedule's number of cut connections (see ``scheduledCut(attempt:remainingBytes:)``).
    package var cuts: Int?
    /// `seed`: the cut schedule's seed (1).
    package var seed: UInt64 = 1
    /// `stall=1`: headers, then nothing.
    package var stall = false
    /// `stall_after`: this many body bytes, then nothing.
    package var stallAfter: Int?
    /// `drip=1` / `drip_ms`: one body byte per write, this many ms apart.
    package var dripMilliseconds: Int?
    /// `status`: answer this status with a text body instead of the stream (200: the stream).
    package var status = 200
    /// `fail_attempts`: only the first N connections to the URL get `status`.
    package var failAttempts: Int?
    /// `location`: a `Location` header with `status` (absent when nil).
    package var location: String?
    /// `retry_after`: a `Retry-After` header with `status`.
    package var retryAfter: String?
    /// `body`: the body sent with `status` (`status CODE`).
    package var errorBody: String?
    /// `content_type`: the stream's `Content-Type` (`text/event-stream`).
    package var contentType = "text/event-stream"
    /// `endless=1`: `data: xxxx…` without a line end.
    package var endless = false
    /// Required bearer token: requests without `Authorization: Bearer <token>` get 401.
    package var requiredToken: String?
    /// `endless_bytes`: with `endless`, stop after N bytes and stall.
    package var endlessBytes: Int?
    /// `encoding`: a `Content-Encoding`; `gzip` and `deflate` compress the body (chunked or
    /// close framing), any other name is sent with the body uncompressed.
    package var encoding: String?
    /// `before_head`: what the server does after reading the request, instead of answering.
    package var beforeHead: BeforeHead?
    /// `long_header`: a response head with a header line of this many bytes, never finished.
    package var longHeader: Int?

    /// A failure after the request was read and before any response byte.
    package enum BeforeHead: String, Sendable, Hashable {
        /// Close the connection (FIN): the client sees an empty reply.
        case close
        /// Reset the connection (RST).
        case reset
        /// Send nothing until the client leaves.
        case hold
    }

    /// Text appended to each event's data with `utf8=1`: 2-, 3- and 4-byte code points.
    package static let utf8Suffix = " h\u{E9}llo \u{20AC} \u{1F600} \u{65E5}\u{672C}"
    /// Bytes appended to each event's data with `invalid_utf8=1`: a lone 0xFF, an
    /// invalid 2-byte sequence, an encoded surrogate, and a truncated 3-byte sequence.
    package static let invalidUTF8Suffix: [UInt8] = [0x20, 0xFF, 0x20, 0xC3, 0x28, 0x20, 0xED, 0xA0, 0x80, 0x20, 0xE2, 0x82]

    /// The defaults of the endpoint with no query.
    package init() {}

    /// Options parsed from the endpoint's query parameters.
    package init(query: [String: String]) {
        func int(_ name: String) -> Int? { query[name].flatMap { Int($0) } }
        func flag(_ name: String) -> Bool { query[name].map { $0 != "0" && $0 != "false" } ?? false }
        count = max(0, int("count") ?? count)
        start = int("start") ?? start
        intervalMilliseconds = max(0, int("interval_ms") ?? 0)
        retry = int("retry")
        eventType = query["event"].flatMap { $0.isEmpty ? nil : $0 }
        dataSize = int("size")
        utf8 = flag("utf8")
        invalidUTF8 = flag("invalid_utf8")
        lineEnding = query["newline"].flatMap(LineEnding.init(rawValue:)) ?? .lf
        byteOrderMark = flag("bom")
        end = query["end"].flatMap(End.init(rawValue:)) ?? .close
        pingMilliseconds = int("ping_ms").flatMap { $0 > 0 ? $0 : nil }
        framing = query["framing"].flatMap(BodyFraming.init(rawValue:)) ?? .chunked
        cut = int("cut")
        reset = flag("reset")
        cuts = int("cuts").flatMap { $0 > 0 ? $0 : nil }
        seed = query["seed"].flatMap { UInt64($0) } ?? 1
        stall = flag("stall")
        stallAfter = int("stall_after")
        dripMilliseconds = int("drip_ms") ?? (flag("drip") ? 0 : nil)
        status = int("status") ?? 200
        failAttempts = int("fail_attempts")
        location = query["location"]
        retryAfter = query["retry_after"]
        errorBody = query["body"]
        contentType = query["content_type"] ?? contentType
        endless = flag("endless")
        requiredToken = query["auth"]
        endlessBytes = int("endless_bytes")
        encoding = query["encoding"].flatMap { $0.isEmpty ? nil : $0 }
        beforeHead = query["before_head"].flatMap(BeforeHead.init(rawValue:))
        longHeader = int("long_header")
    }

    /// The id of the last event of the stream.
    package var lastID: Int { start + count - 1 }

    /// The bytes of the event with `id`: `id:`, optional `event:`, `data:`, blank line.
    package func event(id: Int) -> [UInt8] {
        let newline = lineEnding.bytes
        var bytes = Array("id: \(id)".utf8) + newline
        if let eventType { bytes += Array("event: \(eventType)".utf8) + newline }
        var data = Array("data: event \(id)".utf8)
        if utf8 { data += Array(Self.utf8Suffix.utf8) }
        if invalidUTF8 { data += Self.invalidUTF8Suffix }
        if let dataSize, data.count - 6 < dataSize {
            data += [UInt8](repeating: UInt8(ascii: "x"), count: dataSize - (data.count - 6))
        }
        return bytes + data + newline + newline
    }

    /// What precedes the first event: an optional BOM and `retry:` field.
    package var preamble: [UInt8] {
        var bytes: [UInt8] = byteOrderMark ? [0xEF, 0xBB, 0xBF] : []
        if let retry { bytes += Array("retry: \(retry)".utf8) + lineEnding.bytes + lineEnding.bytes }
        return bytes
    }

    /// The ids the server sends to a request carrying `Last-Event-ID: lastEventID` (nil: none).
    package func ids(resumingAfter lastEventID: Int?) -> ClosedRange<Int>? {
        let first = max(start, (lastEventID ?? (start - 1)) + 1)
        return first <= lastID ? first...lastID : nil
    }

    /// The whole body the server sends when not cut: preamble, then the events after `lastEventID`.
    package func body(resumingAfter lastEventID: Int?) -> [UInt8] {
        var bytes = preamble
        if let ids = ids(resumingAfter: lastEventID) {
            for id in ids { bytes += event(id: id) }
        }
        return bytes
    }

    /// Where the `attempt`-th connection (0-based) to the same URL is cut under a cut schedule
    /// (`cuts=N&seed=S`), given the remaining body size; nil when that connection is not cut.
    ///
    /// Cut points are uniform in 1…2·T/N bytes (T = size of the whole stream), clamped to
    /// stop before the end, so N successive connections are all cut and the cuts spread
    /// over the stream at arbitrary bytes: mid-line, mid-field, mid-code-point.
    package func scheduledCut(attempt: Int, remainingBytes: Int) -> Int? {
        scheduledCut(attempt: attempt, remainingBytes: remainingBytes, totalBytes: body(resumingAfter: nil).count)
    }

    func scheduledCut(attempt: Int, remainingBytes: Int, totalBytes: Int) -> Int? {
        guard let cuts, attempt < cuts, remainingBytes > 1 else { return nil }
        let span = UInt64(max(1, 2 * totalBytes / cuts))
        var generator = SplitMix64(seed: seed &+ UInt64(attempt) &* 0x9E37_79B9_7F4A_7C15)
        let point = Int(1 + generator.next() % span)
        return min(point, remainingBytes - 1)
    }
}
