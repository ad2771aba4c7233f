import Foundation
import Testing
@testable import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct RealtimeErrorTests {
    @Test func codesAreStableAndClassified() {
        let e = RealtimeError.httpStatus(503, bodyExcerpt: String(repeating: "x", count: 2000), retryAfter: .seconds(3))
        #expect(e.code == .httpStatus)
        #expect(e.code.description == "http_status")
        #expect(e.failureClass == .http)
        #expect(e.bodyExcerpt?.utf8.count == RealtimeError.maxBodyExcerpt)
        #expect(e.description == "http_status (503)")
        #expect(RealtimeError(.idleTimeout).failureClass == .timeout)
        #expect(RealtimeError.protocolViolation("masked frame").closeCode == 1002)
        #expect(RealtimeError.cancelled.failureClass == .cancelled)
    }

    static let allCodes: [RealtimeError.Code] = [
        .network, .connectTimeout, .idleTimeout, .dnsFailure, .unreachable, .tls, .httpStatus, .invalidContentType,
        .invalidContentEncoding, .redirect, .handshake, .proxy, .protocolViolation, .invalidUTF8, .lineTooLong,
        .eventTooLarge, .frameTooLarge, .messageTooLarge, .heartbeatTimeout, .peerNotReading, .remoteClosed,
        .streamEnded, .requestNotRepeatable, .notConnected, .sendNotSupported, .cancelled, .unsupportedScheme,
        .invalidConfiguration, .retriesExhausted, .circuitOpen, .truncated, .unauthorized, .internal, .streamError,
        .sendExpired, .sendQueueFull, .openTimeout, .openHookFailed, .cursorSaveFailed,
    ]

    /// The Errors article's table ("codes (class)") is the contract: every code it names has
    /// that stable string and that class, and every code is distinct.
    @Test func theErrorsArticleTableIsTheCodesAndClasses() throws {
        let byName = Dictionary(uniqueKeysWithValues: Self.allCodes.map { ($0.description, $0) })
        #expect(byName.count == Self.allCodes.count, "every code has its own string")
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Realtime/Realtime.docc/Errors.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        var checked = 0
        for row in text.split(separator: "\n") where row.hasPrefix("| ") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3 else { continue }
            // "`a`, `b` (class), then `c` (class)": backticked codes, each group followed by its class.
            var pending: [String] = []
            for (i, piece) in cells[1].components(separatedBy: "`").enumerated() {
                if i % 2 == 1 { pending.append(piece); continue }
                guard let open = piece.firstIndex(of: "("), let close = piece[open...].firstIndex(of: ")") else { continue }
                let className = String(piece[piece.index(after: open)..<close])
                for name in pending {
                    guard let code = byName[name] else { Issue.record("the article names `\(name)`, which is not a code"); continue }
                    #expect(RealtimeError(code).failureClass.description == className, "`\(name)` is in class \(className) in the article")
                    checked += 1
                }
                pending = []
            }
        }
        #expect(checked >= 30, "the table was found and read (\(checked) codes)")
    }

    /// One grapheme cluster of two million combining marks: `prefix(512)` by characters
    /// would keep all 4,000,001 bytes.
    @Test func excerptsAreCutByBytesAtAScalarBoundary() throws {
        let cluster = "e" + String(repeating: "\u{301}", count: 2_000_000)
        #expect(cluster.count == 1)
        let e = RealtimeError(.streamError, bodyExcerpt: cluster)
        let excerpt = try #require(e.bodyExcerpt)
        #expect(excerpt.utf8.count <= RealtimeError.maxBodyExcerpt)
        #expect(excerpt.utf8.count == 511, "e and 255 two-byte marks")
        #expect(cluster.unicodeScalars.starts(with: excerpt.unicodeScalars))
        // A four-byte scalar across the limit is left out whole.
        let emoji = String(repeating: "x", count: 510) + "🌍"
        #expect(RealtimeError.excerpt(emoji) == String(repeating: "x", count: 510))
        #expect(RealtimeError.excerpt("short") == "short")
    }

    @Test func byteExcerptsDropACutScalarAndStayWithinTheLimit() {
        let cut = Array(String(repeating: "x", count: 511).utf8) + Array("é".utf8) + Array("tail".utf8)
        #expect(RealtimeError.excerpt(bytes: cut) == String(repeating: "x", count: 511))
        // Every byte invalid: 512 U+FFFD would be 1536 bytes.
        let invalid = RealtimeError.excerpt(bytes: [UInt8](repeating: 0xFF, count: 600))
        #expect(invalid.map { $0.utf8.count <= RealtimeError.maxBodyExcerpt } == true)
        #expect(invalid?.unicodeScalars.allSatisfy { $0 == "\u{FFFD}" } == true)
        #expect(RealtimeError.excerpt(bytes: [UInt8]()) == nil)
        #expect(RealtimeError.excerpt(bytes: Array("日本語".utf8)) == "日本語")
        for n in 505...520 {
            let text = String(repeating: "語", count: n / 3 + 1)
            let excerpt = RealtimeError.excerpt(bytes: Array(text.utf8).prefix(n))
            #expect(excerpt.map { $0.utf8.count <= RealtimeError.maxBodyExcerpt && !$0.contains("\u{FFFD}") } == true, "\(n)")
        }
    }

    @Test func underlyingIsKeptAndStaysOutOfTheDescription() {
        let cause = RealtimeError.httpStatus(429, bodyExcerpt: "secret-ish body", retryAfter: .seconds(7))
        var e = RealtimeError(.retriesExhausted, detail: "gave up after 3 attempt(s); last: http_status", status: 429)
        e.underlying = cause
        #expect(e.underlying == cause)
        #expect(e.underlying?.retryAfter == .seconds(7))
        #expect(e.description == "retries_exhausted (429): gave up after 3 attempt(s); last: http_status")
        #expect(!e.description.contains("secret"))
        var nested = RealtimeError(.circuitOpen)
        nested.underlying = e
        #expect(nested.underlying?.underlying == cause, "wrappers nest")
        #expect(nested != RealtimeError(.circuitOpen), "the cause takes part in equality")
        e.underlying = nil
        #expect(e.underlying == nil)
    }

    @Test func truncatedIsAStableCode() {
        let e = RealtimeError(.truncated, detail: "the stream ended before its terminator")
        #expect(e.code.description == "truncated")
        #expect(e.failureClass == .endOfStream)
    }
}
