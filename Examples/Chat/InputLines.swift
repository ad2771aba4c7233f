import Foundation

/// The lines of standard input, read by a thread of their own (a blocking `read(2)` must not
/// hold one of the few threads of Swift's cooperative pool). A CR before the LF is dropped;
/// a last line without LF counts; invalid UTF-8 becomes U+FFFD.
enum InputLines {
    static func standardInput() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            func emit(_ line: ArraySlice<UInt8>) {
                continuation.yield(String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self))
            }
            while true {
                let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                pending += buffer[0..<n]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    emit(pending[..<newline])
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { emit(pending[...]) }
            continuation.finish()
        }.start()
        return stream
    }
}
