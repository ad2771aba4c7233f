/// Stops the run with a message when an invariant does not hold: libFuzzer reports the trap
/// as a crash and saves the input that caused it.
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("invariant violated: \(message())", file: file, line: line) }
}

/// `description` of a value cut to a length fit for a crash report.
func short(_ value: some Any, limit: Int = 300) -> String {
    let text = String(describing: value)
    return text.count <= limit ? text : String(text.prefix(limit)) + "… (\(text.count) characters)"
}
