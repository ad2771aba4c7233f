@_spi(Transport) import RealtimeCore

/// The head of one HTTP response as libcurl reports it, line by line, through
/// `CURLOPT_HEADERFUNCTION` (status line, fields, blank line; repeated for each 1xx,
/// redirect and final response).
package struct SSEResponseHead {
    var headers = HTTPHeaders()
    /// True once any status line arrived: the request reached a server.
    private(set) var sawResponse = false

    /// What one header line means to the caller.
    enum Line {
        case statusLine
        case field
        /// The blank line that ends a head.
        case end
        case ignored
    }

    /// Consumes one raw header line (with its CRLF).
    mutating func consume(_ line: UnsafeRawBufferPointer) -> Line {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        if end == 0 { return .end }
        let bytes = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if bytes.count >= 5, bytes[0] == 0x48, bytes[1] == 0x54, bytes[2] == 0x54, bytes[3] == 0x50, bytes[4] == 0x2F {
            // "HTTP/": a new response begins (after a 1xx or a followed redirect).
            headers = HTTPHeaders()
            sawResponse = true
            return .statusLine
        }
        guard let colon = bytes.firstIndex(of: 0x3A) else { return .ignored }
        let name = String(decoding: bytes[..<colon], as: UTF8.self)
        var valueStart = colon + 1
        while valueStart < bytes.count, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
        var valueEnd = bytes.count
        while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        let value = String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
        headers.add(name: name, value: value)
        return .field
    }

    /// Whether `Content-Type` names `text/event-stream`, ignoring parameters and case
    /// (WHATWG HTML §9.2.3 step "If res's … Content-Type is not text/event-stream, fail").
    var isEventStream: Bool {
        guard let ct = headers["Content-Type"] else { return false }
        let media = ct.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return media.trimmingASCIISpaces().lowercased() == "text/event-stream"
    }

    /// Whether `Content-Type` names `application/json` or a `+json` type (RFC 6839 §3.1).
    var isJSON: Bool {
        guard let ct = headers["Content-Type"] else { return false }
        let media = (ct.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingASCIISpaces().lowercased()
        return media == "application/json" || (media.hasPrefix("application/") && media.hasSuffix("+json"))
    }

    /// The first content coding of `Content-Encoding` (RFC 9110 §8.4) that is neither
    /// `identity` nor in `decodable` (`x-gzip` counts as `gzip`, §8.4.1.3), lower-cased and
    /// cut to 32 characters for an error detail; nil when the body can be decoded.
    func undecodableContentCoding(decodable: [String]) -> String? {
        for value in headers.values(for: "Content-Encoding") {
            for part in value.split(separator: ",") {
                var coding = part.trimmingASCIISpaces().lowercased()
                if coding == "x-gzip" { coding = "gzip" }
                if coding.isEmpty || coding == "identity" || decodable.contains(coding) { continue }
                return String(coding.prefix(32).filter { $0.isASCII && !$0.isWhitespace })
            }
        }
        return nil
    }

    /// The media type only, for error details (never a header value that can hold secrets).
    var mediaType: String {
        guard let ct = headers["Content-Type"] else { return "none" }
        let media = ct.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return String(media.trimmingASCIISpaces().prefix(64))
    }
}
