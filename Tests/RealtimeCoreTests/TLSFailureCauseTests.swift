import Foundation
import RealtimeTestSupport
import Testing

@_spi(Transport) @testable import RealtimeCore

/// The TLS cause table both transports classify by: a peer that vanished is a network failure
/// the policy retries with backoff, every refusal is a `tls` stop, and the Errors article says
/// the same.
@Suite(.timeLimit(.minutes(1))) struct TLSFailureCauseTests {
    static let retried: Set<TLSFailureCause> = [.connectionReset, .connectionClosed]

    @Test("the policy retries a vanished peer with backoff and stops at a refusal", arguments: TLSFailureCause.allCases)
    func decision(cause: TLSFailureCause) {
        let error = cause.error(reason: "")
        let end = TransportEnd(clean: false, error: error, requestWasDelivered: false)
        let context = ReconnectContext(attempt: 1, opened: false)
        var backoff = Backoff(policy: .default)
        var rng = SeededGenerator(seed: 7)
        let decision = ReconnectPolicy.default.decide(end, context: context, backoff: &backoff, using: &rng)
        if Self.retried.contains(cause) {
            #expect(error.code == .network && error.failureClass == .network)
            guard case .retry(let delay) = decision else {
                Issue.record("\(cause): \(decision)")
                return
            }
            #expect(delay > .zero, "a delay drawn from the backoff, never at once")
        } else {
            #expect(error.code == .tls && error.failureClass == .tls)
            #expect(decision == .stop(reason: error))
        }
    }

    @Test("the words: a phrase per cause, then OpenSSL's reason or the socket error")
    func words() {
        #expect(TLSFailureCause.connectionReset.detail(reason: "connection reset by peer")
            == "connection lost during the TLS handshake: connection reset by peer")
        #expect(TLSFailureCause.connectionClosed.detail(reason: "") == "connection closed by peer during the TLS handshake")
        #expect(TLSFailureCause.expiredCertificate.detail(reason: "certificate has expired")
            == "certificate verify failed: certificate has expired")
        #expect(TLSFailureCause.pinMismatch.detail(reason: "ignored") == "server public key does not match any pinned key")
        #expect(TLSFailureCause.noCommonParameters.detail(reason: "tlsv1 alert protocol version")
            == "no TLS version or cipher in common: tlsv1 alert protocol version")
        #expect(TLSFailureCause.clientCertificateRefused.detail(reason: "tlsv13 alert certificate required")
            == "client certificate refused: tlsv13 alert certificate required")
        #expect(TLSFailureCause.handshakeFailed.detail(reason: "") == "handshake failed")
    }

    /// The article's "TLS failures" table: a row for every cause, whose code is the cause's
    /// and whose detail column is the cause's phrase.
    @Test func theErrorsArticleListsEveryCause() throws {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Realtime/Realtime.docc/Errors.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "### TLS failures").dropFirst().first?
            .components(separatedBy: "\n### ").first)
        var rows: [(code: String, detail: String)] = []
        for row in section.split(separator: "\n") where row.hasPrefix("| ") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, cells[1].hasPrefix("`"), cells[2].hasPrefix("`") else { continue }
            rows.append((cells[1].components(separatedBy: "`")[1], cells[2].components(separatedBy: "`")[1]))
        }
        for cause in TLSFailureCause.allCases {
            let phrase = cause.detail(reason: "")
            let matching = rows.filter { $0.detail == phrase }
            #expect(!matching.isEmpty, "no row for \(cause) (\(phrase))")
            for row in matching { #expect(row.code == cause.code.description, "\(cause)") }
        }
        #expect(rows.contains { $0.code == "connect_timeout" }, "the stalled handshake has its row")
    }
}
