@testable import RealtimeCore

/// The hand-written UTF-8 validators against the standard library's. They matter beyond
/// correctness: the SSE parser builds its strings with `UTF8Span(unchecked:)`, so a validator
/// that accepted a bad sequence would make a malformed `String`.
///
/// Input: a chunking seed, an ASCII prefix length, then bytes. Invariants:
/// - ``SSEUTF8/validate(_:count:)`` and ``SSEUTF8/isValid(_:nonASCIIFrom:to:)`` (the SIMD
///   path, after an ASCII prefix as the parser calls it) agree with `String(validating:)`, and
///   the ASCII flag is right;
/// - ``UTF8Validator`` agrees with it fed whole and in the fuzzer's chunks;
/// - the strings the parser builds equal `String(decoding:)`.
enum UTF8Fuzz {
    static func check(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let seed = input.uint64()
        let prefix = Int(input.byte() % 40)
        let bytes = input.rest()
        let valid = String(validating: bytes, as: UTF8.self) != nil
        let ascii = bytes.allSatisfy { $0 < 0x80 }

        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress {
                let result = SSEUTF8.validate(base, count: raw.count)
                require(result.valid == valid, "SSEUTF8.validate says \(result.valid) for \(short(bytes))")
                if valid { require(result.ascii == ascii, "SSEUTF8.validate ascii \(result.ascii) for \(short(bytes))") }
            }
            require(SSEUTF8.string(raw) == String(decoding: bytes, as: UTF8.self), "SSEUTF8.string differs for \(short(bytes))")
        }
        let line = [UInt8](repeating: 0x61, count: prefix) + bytes
        line.withUnsafeBytes { raw in
            let simd = SSEUTF8.isValid(raw.baseAddress!, nonASCIIFrom: prefix, to: line.count)
            require(simd == valid, "SSEUTF8.isValid(from: \(prefix)) says \(simd) for \(short(bytes))")
        }

        require(UTF8Validator.isValid(bytes) == valid, "UTF8Validator.isValid differs for \(short(bytes))")
        var validator = UTF8Validator()
        var ok = true
        for chunk in FuzzChunks.split(bytes, seed: seed) where ok {
            ok = chunk.withUnsafeBytes { validator.validate($0) }
        }
        require((ok && validator.finish()) == valid, "UTF8Validator in chunks says \(ok) for \(short(bytes))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUTF8(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    UTF8Fuzz.check(data, size)
    return 0
}
