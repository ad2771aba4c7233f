import Foundation
import Realtime

/// The lines of a file descriptor (standard input by default) as text messages to send, read by a
/// thread of their own: a blocking `read(2)` must not hold one of the few threads of Swift's
/// cooperative pool. Lines end with LF (a CR before it is dropped); a last line without LF
/// counts; invalid UTF-8 becomes U+FFFD. The stream finishes at end of input or on a read error.
enum StandardInputLines {
    static func textMessages(fileDescriptor fd: Int32 = STDIN_FILENO) -> AsyncStream<OutboundMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: OutboundMessage.self)
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            func emit(_ line: ArraySlice<UInt8>) {
                var line = line
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                continuation.yield(.text(String(decoding: line, as: UTF8.self)))
            }
            reading: while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break reading }
                pending.append(contentsOf: buffer[0..<n])
                var start = pending.startIndex
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    emit(pending[start..<newline])
                    start = newline + 1
                }
                pending.removeSubrange(..<start)
            }
            if !pending.isEmpty { emit(pending[...]) }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}
