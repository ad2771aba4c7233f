import Foundation

/// Messages for humans go to standard error (Glibc `stderr` is not usable from Swift 6
/// strict concurrency; `FileHandle` is).
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
