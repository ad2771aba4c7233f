@testable import RealtimeCore

/// ``URLRedaction``: URL userinfo hidden from any text, parsable or not.
///
/// Input: a mode byte, then either free text or the parts of a URL with credentials (scheme,
/// user, password, host, path) and the text around it. Invariants:
/// - any text: no crash; redacting twice changes nothing more; text without `@` is returned
///   as it is; outside the hidden runs the text is unchanged (only `***` is inserted);
/// - a URL with a user and password, alone, in quotes or brackets, or inside other text, never
///   keeps its password (nor a distinctive half of it), nor its user name, and its host
///   survives unless the password holds `/ ? # \` (then more is hidden, by design).
enum URLRedactionFuzz {
    static let schemes = ["http", "https", "ws", "wss", "socks5h", "HTTP", "x-custom+v1.2"]
    /// Characters a password may hold, whitespace excluded (whitespace ends a token: a raw
    /// space inside a URL is not a URL).
    static let passwordCharacters = Array("abcXYZ0189-._~!$&'()*+,;=:%/?#[]\\@é😀")
    static let userCharacters = Array("abcXYZ019-._~!$&'()*+,;=%")

    static func check(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        if input.byte() % 4 == 0 {
            checkText(String(decoding: input.rest(), as: UTF8.self))
        } else {
            checkCredentials(&input)
        }
    }

    static func checkText(_ text: String) {
        let once = URLRedaction.redacted(text)
        require(URLRedaction.redacted(once) == once, "not idempotent: \(short(text)) -> \(short(once))")
        if !text.utf8.contains(UInt8(ascii: "@")) { require(once == text, "text without @ changed: \(short(text))") }
        // The output is the input with runs replaced by the mask: cut at the masks, its pieces
        // are found in the input in order (compared as bytes: a piece may end inside a
        // grapheme cluster of the input).
        let input = Array(text.utf8), output = Array(once.utf8), mask = Array(URLRedaction.mask.utf8)
        var from = 0
        for piece in output.split(separator: mask, omittingEmptySubsequences: false) {
            guard let found = firstIndex(of: piece, in: input, from: from) else {
                return require(false, "\(short(String(decoding: piece, as: UTF8.self))) is not from the input \(short(text))")
            }
            from = found + piece.count
        }
    }

    static func firstIndex(of piece: ArraySlice<UInt8>, in bytes: [UInt8], from: Int) -> Int? {
        guard !piece.isEmpty else { return from }
        var i = from
        while i + piece.count <= bytes.count {
            if bytes[i..<i + piece.count].elementsEqual(piece) { return i }
            i += 1
        }
        return nil
    }

    static func string(_ input: inout FuzzInput, from characters: [Character], count: ClosedRange<Int>) -> String {
        String((0..<input.int(in: count)).map { _ in characters[Int(input.byte()) % characters.count] })
    }

    static func checkCredentials(_ input: inout FuzzInput) {
        let shape = input.byte()
        let scheme = schemes[Int(input.byte()) % schemes.count]
        let user = "U" + string(&input, from: userCharacters, count: 0...6) + "q"
        let password = "Pw" + string(&input, from: passwordCharacters, count: 2...16) + "Zz"
        let host = ["h.example", "[::1]", "[fe80::1%25eth0]", "10.1.2.3", "h.example:8443", "[::1]:9"][Int(input.byte()) % 6]
        let path = ["", "/", "/x/y?q=1#f", "/@me", "?next=a@b", "#@"][Int(input.byte()) % 6]
        let before = String(decoding: input.field(max: 32), as: UTF8.self)
        let after = String(decoding: input.rest().prefix(32), as: UTF8.self)
        let url = shape & 1 == 0 ? "\(scheme)://\(user):\(password)@\(host)\(path)" : "\(user):\(password)@\(host)\(path)"
        let wrapped = ["\(url)", "'\(url)'", "(\(url))", "\"\(url)\"", "<\(url)>"][Int(shape >> 1) % 5]
        let text = before + " " + wrapped + " " + after
        let out = URLRedaction.redacted(text)
        checkText(text)
        let context = before + after + host + path + scheme
        let quoted = "\(short(text)) -> \(short(out))"
        if !context.contains(password) { require(!out.contains(password), "password kept: \(quoted)") }
        for half in [password.prefix(password.count / 2), password.suffix(password.count / 2)] where half.count >= 6 {
            if !context.contains(half) && !user.contains(half) { require(!out.contains(half), "half of the password kept: \(quoted)") }
        }
        if user.count >= 4 && !context.contains(user) && !password.contains(user) {
            require(!out.contains(user + ":"), "user name kept: \(quoted)")
        }
        if !password.contains(where: { "/?#\\".contains($0) }) && !path.contains("@") && !after.contains("@") {
            require(out.contains("@" + host), "host hidden: \(quoted)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLRedaction(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    URLRedactionFuzz.check(data, size)
    return 0
}
