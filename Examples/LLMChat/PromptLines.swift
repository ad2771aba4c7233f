import Foundation

/// Standard input's lines, read by a thread of their own (a blocking `read(2)` must not hold
/// one of the few threads of Swift's cooperative pool). Empty lines are skipped; the stream
/// finishes at the end of input.
enum PromptLines {
    static func stream() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            func emit(_ line: ArraySlice<UInt8>) {
                let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                if !text.isEmpty { continuation.yield(text) }
            }
            while true {
                let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                pending.append(contentsOf: buffer[0..<n])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    emit(pending[..<newline])
                    pending.removeSubrange(...newline)
                }
            }
            emit(pending[...])
            continuation.finish()
        }
        thread.start()
        return stream
    }
}
