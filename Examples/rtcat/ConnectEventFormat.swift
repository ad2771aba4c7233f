import RealtimeJSON
import Foundation
import Realtime

/// How `rtcat` prints a ``ClientEvent``: one JSON object, keys in this order (optional keys
/// are left out when the protocol has no value for them):
///
/// - `{"kind": "open", "transport": "sse"|"websocket", "url": "...", "status": 200, "attempt": 1}`
///   plus `"subprotocol"` and `"extensions"` (comma-separated) when a WebSocket negotiated them
/// - SSE: `{"kind": "event", "type": "...", "data": "...", "id": "..."}`;
///   WebSocket: `{"kind": "event", "text": "..."}` or `{"kind": "event", "binary": "<base64>"}`
/// - `{"kind": "comment", "text": "..."}` for an SSE comment (with `--comments`)
/// - `{"kind": "error", "code": "http_status", "message": "...", "status": 404, "willRetry": false}`
///   with `"retryIn"` (seconds) when a retry is scheduled, `"status"` when there was an HTTP status,
///   and `"reconnectionTime"` (seconds: the base of the delays, the server's `retry:` once it
///   sent one) when a retry follows
/// - `{"kind": "closed", "clean": true, "code": 1000, "reason": "...", "willReconnect": false}`
///   (`code`/`reason` only when a WebSocket close frame carried them), plus `"reconnectionTime"`
///   when a reconnect follows
///
/// Nothing printed carries a secret: no header values, no request body, and the password
/// of a URL is replaced.
enum ConnectEventFormat {
    typealias Fields = [(key: String, value: JSONValue)]

    static func fields(_ event: ClientEvent, reconnectionTime: Duration? = nil) -> Fields {
        switch event {
        case .open(let info):
            var f: Fields = [
                ("kind", .string("open")), ("transport", .string(info.transport.rawValue)),
                ("url", .string(redacted(info.url))),
            ]
            if let status = info.status { f.append(("status", .int(status))) }
            f.append(("attempt", .int(info.attempt)))
            if let subprotocol = info.subprotocol { f.append(("subprotocol", .string(subprotocol))) }
            if !info.extensions.isEmpty { f.append(("extensions", .string(info.extensions.joined(separator: ", ")))) }
            return f
        case .event(let message) where message.isComment:
            return [("kind", .string("comment")), ("text", .string(message.text ?? ""))]
        case .event(let message):
            switch message.content {
            case .text(let text) where message.type != nil || message.id != nil:
                return [
                    ("kind", .string("event")), ("type", .string(message.type ?? "message")),
                    ("data", .string(text)), ("id", .string(message.id ?? "")),
                ]
            case .text(let text):
                return [("kind", .string("event")), ("text", .string(text))]
            case .binary(let bytes):
                return [("kind", .string("event")), ("binary", .string(Data(bytes).base64EncodedString()))]
            }
        case .error(let e):
            var f: Fields = [
                ("kind", .string("error")), ("code", .string(e.error.code.description)),
                ("message", .string(e.error.description)),
            ]
            if let status = e.error.status { f.append(("status", .int(status))) }
            f.append(("willRetry", .bool(e.willRetry)))
            if let retryIn = e.retryIn { f.append(("retryIn", .double(seconds(retryIn)))) }
            if e.willRetry, let reconnectionTime { f.append(("reconnectionTime", .double(seconds(reconnectionTime)))) }
            return f
        case .closed(let c):
            var f: Fields = [("kind", .string("closed")), ("clean", .bool(c.clean))]
            if let code = c.code { f.append(("code", .int(Int(code)))) }
            if let reason = c.reason, !reason.isEmpty || c.code != nil { f.append(("reason", .string(reason))) }
            f.append(("willReconnect", .bool(c.willReconnect)))
            if c.willReconnect, let reconnectionTime { f.append(("reconnectionTime", .double(seconds(reconnectionTime)))) }
            return f
        }
    }

    /// A duration in seconds, rounded to the millisecond (`0.25`, not `0.25000000001`).
    static func seconds(_ d: Duration) -> Double {
        let (s, attoseconds) = d.components
        return (Double(s) * 1000 + (Double(attoseconds) / 1e15).rounded()) / 1000
    }

    /// The URL without its userinfo, so a `https://user:secret@host/` never reaches a log.
    static func redacted(_ url: URL) -> String {
        URLRedaction.redacted(url.absoluteString)
    }
}
