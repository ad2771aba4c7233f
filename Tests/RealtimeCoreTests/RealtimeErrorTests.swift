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
