import Foundation

/// What Chat writes: lines on standard output, unbuffered (each visible at once, also in a pipe).
enum Terminal {
    /// A line of the conversation.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A line about the connection, marked `* `.
    static func note(_ text: String) {
        line("* " + text)
    }
}
