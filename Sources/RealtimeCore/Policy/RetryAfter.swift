#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Parses the HTTP `Retry-After` header (RFC 9110 §10.2.3).
///
/// The value is either `delay-seconds` (one or more ASCII digits) or an HTTP-date
/// (RFC 9110 §5.6.7: the preferred IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, and the
/// obsolete RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`
/// forms, which recipients must accept). Hand-written so that `RealtimeCore` needs no
/// `DateFormatter` and no locale.
package enum RetryAfter {
    /// The delay the server asked for, or nil when the value is not valid.
    /// A date in the past gives `.zero`. Surrounding whitespace is ignored.
    package static func parse(_ value: String, now: Date) -> Duration? {
        let bytes = Array(value.utf8)
        var lo = 0, hi = bytes.count
        while lo < hi, bytes[lo] == 0x20 || bytes[lo] == 0x09 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09 { hi -= 1 }
        let v = bytes[lo..<hi]
        guard !v.isEmpty else { return nil }
        if v.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // Saturate rather than overflow: the backoff caps server delays anyway.
            var seconds: Int64 = 0
            for d in v {
                let (m, o1) = seconds.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(d - 0x30))
                if o1 || o2 { return .seconds(Int64.max / 4) }
                seconds = a
            }
            return .seconds(seconds)
        }
        guard let epoch = httpDateEpochSeconds(String(decoding: v, as: UTF8.self)) else { return nil }
        let delta = Double(epoch) - now.timeIntervalSince1970
        return delta > 0 ? .clampedSeconds(delta) : .zero
    }

    /// Seconds since 1970-01-01T00:00:00Z for an HTTP-date, or nil.
    static func httpDateEpochSeconds(_ s: String) -> Int64? {
        let tokens = s.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
        if tokens.count == 6, tokens[0].hasSuffix(","), tokens[5] == "GMT",
            let day = Int(tokens[1]), tokens[1].count == 2, let month = month(tokens[2]),
            tokens[3].count == 4, let year = Int(tokens[3]), let time = clock(tokens[4])
        {
            return epoch(year: year, month: month, day: day, time: time)
        }
        // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT"
        if tokens.count == 4, tokens[0].hasSuffix(","), tokens[3] == "GMT", let time = clock(tokens[2]) {
            let parts = tokens[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 2, let day = Int(parts[0]),
                let month = month(String(parts[1])), parts[2].count == 2, let yy = Int(parts[2])
            else { return nil }
            // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past
            // century; with no clock here, use the common pivot (00–69 → 20xx).
            let year = yy < 70 ? 2000 + yy : 1900 + yy
            return epoch(year: year, month: month, day: day, time: time)
        }
        // asctime: "Sun" "Nov" "6" "08:49:37" "1994"
        if tokens.count == 5, let month = month(tokens[1]), let day = Int(tokens[2]),
            tokens[2].count <= 2, let time = clock(tokens[3]), tokens[4].count == 4, let year = Int(tokens[4])
        {
            return epoch(year: year, month: month, day: day, time: time)
        }
        return nil
    }

    private static func month(_ s: String) -> Int? {
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return names.firstIndex(of: s).map { $0 + 1 }
    }

    private static func clock(_ s: String) -> Int? {
        let p = s.split(separator: ":", omittingEmptySubsequences: false)
        guard p.count == 3, p.allSatisfy({ $0.count == 2 }),
            let h = Int(p[0]), let m = Int(p[1]), let sec = Int(p[2]),
            (0...23).contains(h), (0...59).contains(m), (0...60).contains(sec)
        else { return nil }
        return h * 3600 + m * 60 + sec
    }

    private static func epoch(year: Int, month: Int, day: Int, time: Int) -> Int64? {
        guard (1...31).contains(day), year >= 1970, year <= 9999 else { return nil }
        // Days from civil (H. Hinnant's algorithm, proleptic Gregorian calendar).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Int64(days) * 86400 + Int64(time)
    }
}
