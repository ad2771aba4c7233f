/// Walks a command line one option at a time: `--name value` and `--name=value` alike, with
/// typed readers for the option's value. Each reader names the option in its usage error.
struct ArgumentCursor {
    private let arguments: [String]
    private var index = -1
    /// The current argument, without an inline `=value`.
    private(set) var option = ""
    private var inlineValue: String?

    init(_ arguments: [String]) {
        self.arguments = arguments
    }

    /// Moves to the next argument; false at the end.
    mutating func advance() -> Bool {
        index += 1
        guard index < arguments.count else { return false }
        option = arguments[index]
        inlineValue = nil
        if option.hasPrefix("--"), let eq = option.firstIndex(of: "=") {
            inlineValue = String(option[option.index(after: eq)...])
            option = String(option[..<eq])
        }
        return true
    }

    /// The current option is a flag: `--flag=value` is an error.
    func flag() throws(UsageError) {
        if inlineValue != nil { throw UsageError("\(option) takes no value") }
    }

    /// The current option's value (inline, or the next argument).
    mutating func value() throws(UsageError) -> String {
        if let inlineValue { return inlineValue }
        guard index + 1 < arguments.count else { throw UsageError("\(option) needs a value") }
        index += 1
        return arguments[index]
    }

    /// A duration in seconds (decimals allowed), rounded to the millisecond.
    mutating func seconds(allowZero: Bool) throws(UsageError) -> Duration {
        let text = try value()
        guard let s = Double(text), s.isFinite, s >= 0, allowZero || s > 0, s <= 1e9 else {
            throw UsageError("\(option) needs a \(allowZero ? "non-negative" : "positive") number of seconds, not '\(text)'")
        }
        return .milliseconds(Int64((s * 1000).rounded()))
    }

    /// A number of seconds no smaller than `minimum` (e.g. the client's floor between attempts).
    mutating func seconds(atLeast minimum: Duration) throws(UsageError) -> Duration {
        let text = try value()
        let d = Double(text)
        let least = Double(minimum.components.seconds) + Double(minimum.components.attoseconds) * 1e-18
        guard let s = d, s.isFinite, s >= least, s <= 1e9 else {
            throw UsageError("\(option) needs at least \(least) seconds (the shortest delay between attempts), not '\(text)'")
        }
        return .milliseconds(Int64((s * 1000).rounded()))
    }

    /// A whole number no smaller than `minimum`.
    mutating func integer(minimum: Int) throws(UsageError) -> Int {
        let text = try value()
        guard let n = Int(text), n >= minimum else {
            throw UsageError("\(option) needs a whole number ≥ \(minimum), not '\(text)'")
        }
        return n
    }
}
