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

    /// 1012: the service is restarting (IANA WebSocket Close Code Number Registry): an orderly
    /// end, like 1001; the client reconnects per its policy.
    public static let serviceRestart: UInt16 = 1012
    /// 1013: try again later (IANA registry): the server is overloaded or temporarily unable
    /// to serve; the client retries with backoff, as after an HTTP 503.
    public static let tryAgainLater: UInt16 = 1013
    /// 1014: bad gateway (IANA registry): a gateway got an invalid answer upstream; the client
    /// retries with backoff, as after an HTTP 502.
    public static let badGateway: UInt16 = 1014
    /// 1015: the TLS handshake failed (never sent; reported locally).
    public static let tlsHandshakeFailure: UInt16 = 1015

    /// 1012 (service restart), 1013 (try again later) and 1014 (bad gateway): the codes a
    /// server sends to say "come back later". Valid on the wire, echoed like any other code.
    public static func isRetryLater(_ code: UInt16) -> Bool {
        (serviceRestart...badGateway).contains(code)
    }

    /// Whether `code` may be carried by a close frame (RFC 6455 §7.4.1, §7.4.2, and the IANA
    /// WebSocket Close Code Number Registry that §11.7 creates): 1000–1003 and 1007–1014 are
    /// registered for the wire, 3000–4999 belong to libraries and applications. Everything
    /// else — below 1000, 1004–1006 and 1015 (reserved or local-only), the unassigned
    /// 1016–2999, and 5000 and above — is a protocol error when received (close with 1002).
    package static func isValidOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// What a registered code means, in a few words for descriptions and logs (nil for
    /// application codes and codes without a registered meaning).
    package static func meaning(_ code: UInt16) -> String? {
        switch code {
        case normal: return "normal closure"
        case goingAway: return "going away"
        case protocolError: return "protocol error"
        case unsupportedData: return "unsupported data"
        case invalidPayload: return "invalid payload data"
        case policyViolation: return "policy violation"
        case messageTooBig: return "message too big"
        case mandatoryExtension: return "mandatory extension"
        case internalError: return "internal error"
        case serviceRestart: return "service restart"
        case tryAgainLater: return "try again later"
        case badGateway: return "bad gateway"
        default: return nil
        }
    }
}
