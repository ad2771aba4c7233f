import RealtimeCore

/// One HTTP request as the test server received it, kept so tests can assert what a
/// client sent (`Last-Event-ID`, `Authorization`, a POST body, the upgrade headers).
///
/// Recorded before the response is written: once a client has seen any response
/// byte, its request is in ``TestServer/requests``.
package struct RecordedRequest: Sendable, Hashable {
    /// `GET`, `POST`, …
    package var method: String
    /// The request target exactly as sent (`/sse?count=3`).
    package var target: String
    /// The percent-decoded path (`/sse`).
    package var path: String
    /// The raw query string without `?` (empty when absent).
    package var rawQuery: String
    /// Percent-decoded query parameters; the last occurrence of a name wins.
    package var query: [String: String]
    /// `HTTP/1.1` or `HTTP/1.0`.
    package var version: String
    /// The request's headers as received.
    package var headers: HTTPHeaders
    /// The request body, de-chunked (empty for none).
    package var body: [UInt8]
    /// Whether the connection used TLS.
    package var isTLS: Bool
    /// The one-line subject of the client certificate when mutual TLS was used.
    package var clientCertificateSubject: String?
    /// 1 for the first connection the server accepted since `init`, then 2, 3, … (counts across restarts).
    package var connectionNumber: Int
    /// How many earlier requests had the same target (path and query): 0 for the first.
    /// Cut schedules use it to cut successive reconnects at different points.
    package var attempt: Int

    /// The body decoded as UTF-8 (invalid bytes replaced).
    package var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// `Last-Event-ID` parsed as an integer, when present and numeric.
    package var lastEventID: Int? { headers["Last-Event-ID"].flatMap { Int($0.trimmingASCIISpaces) } }
}

extension String {
    var trimmingASCIISpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
