extension Duration {
    /// The duration rounded to the millisecond, for people: `250 ms` below a second,
    /// `1.5 s` or `30 s` from a second on (trailing zeros dropped), negative values with a
    /// minus sign. `Duration`'s own description prints attoseconds (`0.999999999 seconds`).
    package var millisecondsDescription: String {
        let c = components
        // Round half away from zero to whole milliseconds (1 ms = 10^15 attoseconds).
        var ms = c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000
        let rest = c.attoseconds % 1_000_000_000_000_000
        if rest >= 500_000_000_000_000 { ms += 1 } else if rest <= -500_000_000_000_000 { ms -= 1 }
        let sign = ms < 0 ? "-" : ""
        let magnitude = ms.magnitude
        if magnitude < 1000 { return "\(sign)\(magnitude) ms" }
        var fraction = magnitude % 1000
        var text = "\(sign)\(magnitude / 1000)"
        guard fraction > 0 else { return text + " s" }
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let padded = String(fraction)
        text += "." + String(repeating: "0", count: digits - padded.count) + padded
        return text + " s"
    }
}
