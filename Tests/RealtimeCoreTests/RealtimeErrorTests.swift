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
}
