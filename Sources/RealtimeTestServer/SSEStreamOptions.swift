/// The `/sse` endpoint's parameters, parsed from the query, and the exact bytes it sends.
///
/// Public so a test can compute byte offsets (e.g. where a multi-byte code point sits)
/// from the same renderer the server uses: `SSEStreamOptions(query: q).body(resumingAfter: nil)`.
/// Every parameter is documented in ``TestServer/endpointReference``.
public struct SSEStreamOptions: Sendable, Hashable {
    public enum LineEnding: String, Sendable, Hashable {
        case lf, crlf, cr
        var bytes: [UInt8] {
            switch self {
            case .lf: [10]
            case .crlf: [13, 10]
            case .cr: [13]
            }
        }
    }

    /// What happens after the last event.
    public enum End: String, Sendable, Hashable {
        /// End the body and close (default).
        case close
        /// Keep the connection open, sending nothing (or `:` comments every `ping_ms`).
        case hold
        /// End the body; a reconnect whose `Last-Event-ID` is the last id gets 204 No Content.
        case noContent = "204"
    }

    public enum BodyFraming: String, Sendable, Hashable {
        case chunked, close, length
    }

    public var count = 10
    public var start = 1
    public var intervalMilliseconds = 0
    public var retry: Int?
    public var eventType: String?
    public var dataSize: Int?
    public var utf8 = false
    public var invalidUTF8 = false
    public var lineEnding = LineEnding.lf
    public var byteOrderMark = false
    public var end = End.close
    public var pingMilliseconds: Int?
    public var framing = BodyFraming.chunked
    public var cut: Int?
    public var reset = false
    public var cuts: Int?
    public var seed: UInt64 = 1
    public var stall = false
    public var stallAfter: Int?
    public var dripMilliseconds: Int?
    public var status = 200
    public var failAttempts: Int?
    public var location: String?
    public var retryAfter: String?
    public var errorBody: String?
    public var contentType = "text/event-stream"
    public var endless = false
    /// Required bearer token: requests without `Authorization: Bearer <token>` get 401.
    public var requiredToken: String?
    public var endlessBytes: Int?

    /// Text appended to each event's data with `utf8=1`: 2-, 3- and 4-byte code points.
    public static let utf8Suffix = " h\u{E9}llo \u{20AC} \u{1F600} \u{65E5}\u{672C}"
    /// Bytes appended to each event's data with `invalid_utf8=1`: a lone 0xFF, an
    /// invalid 2-byte sequence, an encoded surrogate, and a truncated 3-byte sequence.
    public static let invalidUTF8Suffix: [UInt8] = [0x20, 0xFF, 0x20, 0xC3, 0x28, 0x20, 0xED, 0xA0, 0x80, 0x20, 0xE2, 0x82]

    public init() {}

    public init(query: [String: String]) {
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
    }

    /// The id of the last event of the stream.
    public var lastID: Int { start + count - 1 }

    /// The bytes of the event with `id`: `id:`, optional `event:`, `data:`, blank line.
    public func event(id: Int) -> [UInt8] {
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
    public var preamble: [UInt8] {
        var bytes: [UInt8] = byteOrderMark ? [0xEF, 0xBB, 0xBF] : []
        if let retry { bytes += Array("retry: \(retry)".utf8) + lineEnding.bytes + lineEnding.bytes }
        return bytes
    }

    /// The ids the server sends to a request carrying `Last-Event-ID: lastEventID` (nil: none).
    public func ids(resumingAfter lastEventID: Int?) -> ClosedRange<Int>? {
        let first = max(start, (lastEventID ?? (start - 1)) + 1)
        return first <= lastID ? first...lastID : nil
    }

    /// The whole body the server sends when not cut: preamble, then the events after `lastEventID`.
    public func body(resumingAfter lastEventID: Int?) -> [UInt8] {
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
    public func scheduledCut(attempt: Int, remainingBytes: Int) -> Int? {
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
