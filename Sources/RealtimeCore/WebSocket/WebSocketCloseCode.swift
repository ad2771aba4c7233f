/// Close status codes (RFC 6455 §7.4) and which of them may appear in a received close frame.
public enum WebSocketCloseCode {
    /// 1000: normal closure.
    public static let normal: UInt16 = 1000
    /// 1001: the endpoint is going away (shutdown, page left).
    public static let goingAway: UInt16 = 1001
    /// 1002: protocol error.
    public static let protocolError: UInt16 = 1002
    /// 1003: a data type the endpoint cannot accept.
    public static let unsupportedData: UInt16 = 1003
    /// 1005: no status code was present (never sent on the wire; reported locally).
    public static let noStatusReceived: UInt16 = 1005
    /// 1006: the connection closed without a close frame (never sent; reported locally).
    public static let abnormalClosure: UInt16 = 1006
    /// 1007: data inconsistent with the message type (invalid UTF-8 in text).
    public static let invalidPayload: UInt16 = 1007
    /// 1008: policy violation.
    public static let policyViolation: UInt16 = 1008
    /// 1009: a message too big to process.
    public static let messageTooBig: UInt16 = 1009
    /// 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtension: UInt16 = 1010
    /// 1011: the server hit an unexpected condition.
    public static let internalError: UInt16 = 1011

    /// 1012 (service restart), 1013 (try again later) and 1014 (bad gateway): registered with
    /// IANA after RFC 6455 and not valid on the wire by its §7.4 (so answered with 1002), but
    /// they mean "come back later": the client treats them as the server closing and
    /// reconnects with backoff.
    public static func isRetryLater(_ code: UInt16) -> Bool {
        (1012...1014).contains(code)
    }

    /// Whether `code` may be carried by a close frame (RFC 6455 §7.4.1, §7.4.2): 1000–1003 and
    /// 1007–1011 are defined for the wire, 3000–4999 belong to libraries and applications.
    /// Everything else — below 1000, 1004–1006 and 1015 (reserved or local-only), the unassigned
    /// 1012–2999, and 5000 and above — is a protocol error when received (close with 1002).
    public static func isValidOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: return true
        default: return false
        }
    }
}
