@testable import RealtimeCore

/// ``HTTPResponseHeadParser``: the response head of a WebSocket upgrade or a proxy's CONNECT.
///
/// Input: a chunking seed, a size-limit choice, then the bytes a server sends. Invariants:
/// - fed whole or in the fuzzer's chunks, the same head, the same bytes after it, or the same
///   error; nothing is lost (head bytes + rest = input);
/// - a head is never accepted from more than `maxSize` bytes;
/// - a parsed head, written out again, parses to the same head with nothing left over;
/// - header names are tokens; values carry no surrounding spaces or tabs; `bodyFraming` is
///   defined for every head.
enum HTTPResponseHeadFuzz {
    enum Result: Equatable {
        case head(HTTPResponseHead, rest: [UInt8])
        case incomplete
        case failed(RealtimeError.Code)
    }

    static func parse(_ chunks: [ArraySlice<UInt8>], maxSize: Int) -> Result {
        var parser = HTTPResponseHeadParser(maxSize: maxSize)
        for (i, chunk) in chunks.enumerated() {
            do throws(RealtimeError) {
                if let (head, rest) = try parser.parse(chunk) {
                    return .head(head, rest: rest + chunks[(i + 1)...].flatMap { $0 })
                }
            } catch {
                return .failed(error.code)
            }
        }
        return .incomplete
    }

    /// The head as a server would send it (RFC 9112 §4, §5).
    static func serialize(_ head: HTTPResponseHead) -> [UInt8] {
        let status = String(head.status)
        var text = "\(head.version) \(String(repeating: "0", count: 3 - status.count) + status) \(head.reason)\r\n"
        for field in head.headers.fields { text += "\(field.name): \(field.value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    static func check(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let seed = input.uint64()
        let choice = input.byte()
        let maxSize = choice & 1 == 0 ? HTTPResponseHeadParser.defaultMaxSize : Int(choice >> 1)
        let bytes = input.rest()

        let whole = parse([bytes[...]], maxSize: maxSize)
        let chunked = parse(FuzzChunks.split(bytes, seed: seed), maxSize: maxSize)
        require(chunked == whole, "chunking changed the result: \(short(chunked)) vs whole \(short(whole))")
        guard case .head(let head, let rest) = whole else { return }
        let headLength = bytes.count - rest.count
        require(headLength <= maxSize, "a head of \(headLength) bytes accepted with maxSize \(maxSize)")
        require(Array(bytes[headLength...]) == rest, "the bytes after the head are not the input's")
        require((0...999).contains(head.status), "status \(head.status)")
        for field in head.headers.fields {
            require(WebSocketExtension.isToken(field.name), "header name \(short(field.name)) is not a token")
            require(field.value == WebSocketExtension.trim(field.value), "value \(short(field.value)) not trimmed")
        }
        _ = head.bodyFraming

        let again = parse([serialize(head)[...]], maxSize: .max)
        require(again == .head(head, rest: []), "round trip: \(short(again)) for \(short(head))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPResponseHead(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    HTTPResponseHeadFuzz.check(data, size)
    return 0
}
