import Foundation

/// What Ticker writes: each line on standard output at once (unbuffered, also in a pipe), so
/// a line printed is a line delivered before the cursor moves past its event.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data("Ticker: \(text)\n".utf8))
    }
}
