/// "1", "2", … "n": the ids the test server gives its numbered events.
///
/// A function with one signature, so that `#expect(ids == decimalIDs(1...10))` type-checks in
/// milliseconds: mapping a range through `String.init` inside `#expect` weighs every
/// `String.init` overload against the macro's generic helpers, about 0.3 s of build each.
public func decimalIDs(_ range: ClosedRange<Int>) -> [String] {
    range.map { String($0) }
}
