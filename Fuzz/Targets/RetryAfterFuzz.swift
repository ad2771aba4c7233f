#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@testable import RealtimeCore

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date in its three forms.
///
/// Input: a mode byte, then either a header value (free-form) or the fields of a date.
/// Invariants:
/// - any value: no crash; the delay is never negative; surrounding spaces and tabs do not
///   change it; an all-digit value is its number of seconds (saturated, never wrapped);
/// - a date written in each of the three forms (IMF-fixdate, RFC 850, asctime) parses to the
///   same instant, and `parse` returns its distance from `now` (zero once past, at most 1e9 s).
enum RetryAfterFuzz {
    static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func check(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let now = Date(timeIntervalSince1970: Double(input.uint64() % 8_000_000_000))
        if input.bool() {
            checkDate(&input, now: now)
        } else {
            checkValue(String(decoding: input.rest(), as: UTF8.self), now: now)
        }
    }

    static func checkValue(_ value: String, now: Date) {
        let delay = RetryAfter.parse(value, now: now)
        if let delay { require(delay >= .zero, "negative delay \(delay) for \(short(value))") }
        let padded = RetryAfter.parse(" \t" + value + "\t ", now: now)
        require(padded == delay, "padding changed \(short(value)): \(String(describing: padded)) vs \(String(describing: delay))")
        let digits = value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        if !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            let text = String(decoding: digits, as: UTF8.self)
            if let n = Int64(text) {
                require(delay == .seconds(n), "\(short(value)) gave \(String(describing: delay))")
            } else {
                require(delay != nil && delay! >= .seconds(Int64.max / 4), "huge \(short(value)) gave \(String(describing: delay))")
            }
        }
    }

    /// Civil date (proleptic Gregorian) of a day count since 1970-01-01.
    static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    static func checkDate(_ input: inout FuzzInput, now: Date) {
        // An instant from 1970 to 9999-12-31.
        let epoch = Int64(input.uint64() % 253_402_300_800)
        let days = Int(epoch / 86_400), seconds = Int(epoch % 86_400)
        let (year, month, day) = civil(days)
        let weekday = (days + 4) % 7  // 1970-01-01 was a Thursday
        let time = "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
        var forms = [
            "\(Self.days[weekday]), \(two(day)) \(months[month - 1]) \(year) \(time) GMT",
            "\(Self.days[weekday]) \(months[month - 1]) \(day < 10 ? " \(day)" : "\(day)") \(time) \(year)",
        ]
        if (1970...2069).contains(year) {
            forms.append("\(longDays[weekday]), \(two(day))-\(months[month - 1])-\(two(year % 100)) \(time) GMT")
        }
        // A date's distance is clamped to 1e9 s (about 31 years) like every delay from seconds.
        let expected = min(Double(epoch) - now.timeIntervalSince1970, 1e9)
        for form in forms {
            require(RetryAfter.httpDateEpochSeconds(form) == epoch, "\(form) read as \(String(describing: RetryAfter.httpDateEpochSeconds(form))), not \(epoch)")
            guard let delay = RetryAfter.parse(form, now: now) else { return require(false, "\(form) rejected") }
            if expected <= 0 {
                require(delay == .zero, "\(form) is past but gave \(delay)")
            } else {
                let off = abs(Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18 - expected)
                require(off < 1e-3, "\(form) gave \(delay), expected \(expected) s")
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRetryAfter(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    RetryAfterFuzz.check(data, size)
    return 0
}
