#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing

@testable import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct RetryAfterTests {
    // 1994-11-06T08:49:37Z, the RFC 9110 example date.
    let rfcDate = Date(timeIntervalSince1970: 784_111_777)

    @Test func delaySeconds() {
        #expect(RetryAfter.parse("120", now: rfcDate) == .seconds(120))
        #expect(RetryAfter.parse("  0 ", now: rfcDate) == .zero)
        #expect(RetryAfter.parse("99999999999999999999999", now: rfcDate) != nil)
    }

    @Test func allThreeDateFormsAgree() {
        let now = rfcDate.addingTimeInterval(-30)
        for form in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(RetryAfter.parse(form, now: now) == .seconds(30), "\(form)")
        }
    }

    @Test func pastDateIsZero() {
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: rfcDate.addingTimeInterval(5)) == .zero)
    }

    @Test func leapYearAndMonthArithmetic() {
        // 2024-03-01T00:00:00Z = 1709251200.
        let now = Date(timeIntervalSince1970: 1_709_251_200 - 86_400)
        #expect(RetryAfter.parse("Fri, 01 Mar 2024 00:00:00 GMT", now: now) == .seconds(86_400))
    }

    @Test func invalidValues() {
        for bad in ["", " ", "-5", "1.5", "12s", "soon", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 6 Nov 1994 08:49:37"]
        {
            #expect(RetryAfter.parse(bad, now: rfcDate) == nil, "\(bad)")
        }
    }
}
