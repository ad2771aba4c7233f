import RealtimeCore

/// Checks a request before any I/O: a bad scheme, method or header fails the attempt with
/// a clear error instead of reaching the wire (CR/LF in a header would allow injection).
enum SSERequestValidation {
    static func problem(in request: TransportRequest) -> RealtimeError? {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            return RealtimeError(.unsupportedScheme, detail: "SSE needs http or https, got \(scheme.isEmpty ? "none" : scheme)")
        }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(isTokenByte) else {
            return RealtimeError(.invalidConfiguration, detail: "invalid HTTP method")
        }
        for field in request.headers.fields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(isTokenByte) else {
                return RealtimeError(.invalidConfiguration, detail: "invalid header name")
            }
            // The value is never echoed: it may be a credential.
            guard field.value.utf8.allSatisfy(isFieldValueByte) else {
                return RealtimeError(.invalidConfiguration, detail: "invalid value for header \(field.name)")
            }
        }
        if let id = request.lastEventID, !id.utf8.allSatisfy(isFieldValueByte) {
            return RealtimeError(.invalidConfiguration, detail: "invalid Last-Event-ID")
        }
        return nil
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }

    /// RFC 9110 §5.5: no CR, LF or NUL (other controls except HTAB are refused too).
    private static func isFieldValueByte(_ b: UInt8) -> Bool {
        b == 0x09 || (b >= 0x20 && b != 0x7F)
    }
}
