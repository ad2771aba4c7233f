import Foundation
import Realtime

/// The lines of a file descriptor (standard input by default) as text messages to send, read by a
/// thread of their own: a blocking `read(2)` must not hold one of the few threads of Swift's
/// cooperative pool. Lines end with LF (a CR before it is dropped); a last line without LF
/// counts; invalid UTF-8 becomes U+FFFD. The stream finishes at end of input, on a read error,
/// or at a line longer than ``maxLineBytes`` (reported on standard error; ``InputFlow/failed``).
///
/// Memory stays bounded whatever the input and however slowly the peer reads: the reader waits
/// while ``InputFlow/limit`` bytes of lines are read and not yet sent (a line longer than that
/// goes alone), and a line is kept only up to ``maxLineBytes``. Each byte is scanned for LF
/// once, however many reads a long line takes.
enum StandardInputLines {
    /// The longest line sent: the size of one message in the outbox rtcat gives the client
    /// (the WebSocket transport's default outbound and message limits, 16 MiB).
    static let maxLineBytes = 16 << 20
    /// Bytes of lines read ahead of the sender.
    static let readAhead = 4 << 20

    static func textMessages(
        fileDescriptor fd: Int32 = STDIN_FILENO, flow: InputFlow, maxLineBytes: Int = maxLineBytes, name: String = "rtcat"
    ) -> AsyncStream<OutboundMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: OutboundMessage.self)
        let thread = Thread {
            var reader = LineReader(maxLineBytes: maxLineBytes)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            func emit(_ line: ArraySlice<UInt8>) -> Bool {
                let message = OutboundMessage.text(String(decoding: line, as: UTF8.self))
                guard flow.acquire(InputFlow.size(of: message)) else { return false }
                continuation.yield(message)
                return true
            }
            reading: while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break reading }
                switch reader.append(buffer[0..<n], emit) {
                case .more: continue
                case .stopped: break reading
                case .tooLong(let line):
                    flow.fail()
                    StandardError.write(
                        "\(name): --send: line \(line) of standard input is longer than the message limit of \(maxLineBytes) bytes (\(maxLineBytes >> 20) MiB); it and the lines after it were not sent\n")
                    continuation.finish()
                    return
                }
            }
            if let last = reader.last { _ = emit(last) }
            continuation.finish()
        }
        thread.start()
        return stream
    }

    /// Splits bytes into lines without re-reading any: `scanned` marks how far LF was looked
    /// for in the partial line kept in `pending`.
    struct LineReader {
        let maxLineBytes: Int
        private var pending: [UInt8] = []
        private var scanned = 0
        private(set) var lines = 0

        init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

        enum Outcome: Equatable {
            case more
            /// `emit` returned false: nothing more is wanted.
            case stopped
            /// The line with this number (from 1) is longer than ``maxLineBytes``.
            case tooLong(line: Int)
        }

        /// Appends `bytes`, hands every complete line (CR before LF dropped) to `emit`.
        mutating func append(_ bytes: ArraySlice<UInt8>, _ emit: (ArraySlice<UInt8>) -> Bool) -> Outcome {
            pending.append(contentsOf: bytes)
            var start = 0
            while let newline = pending[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = pending[start..<newline]
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                lines += 1
                guard line.count <= maxLineBytes else { return .tooLong(line: lines) }
                guard emit(line) else { return .stopped }
                start = newline + 1
                scanned = start
            }
            scanned = pending.count
            if start > 0 {
                pending.removeSubrange(..<start)
                scanned -= start
            }
            // A CR may still be dropped before the LF to come: one byte of grace.
            if pending.count > maxLineBytes + 1 { return .tooLong(line: lines + 1) }
            return .more
        }

        /// The last line when the input did not end with LF.
        var last: ArraySlice<UInt8>? {
            pending.isEmpty ? nil : pending[...]
        }
    }
}

/// The bound between the thread that reads `--send` input and the task that sends it: the
/// reader waits while ``limit`` bytes of messages are read and not yet sent (one larger
/// message goes alone), and both record whether something was left unsent.
final class InputFlow: @unchecked Sendable {
    let limit: Int
    // NSCondition: the reader is a plain thread that must block, not a task.
    private let condition = NSCondition()
    private var inFlight = 0
    private var closed = false
    private var failure = false

    init(limit: Int = StandardInputLines.readAhead) { self.limit = limit }

    /// The bytes a message counts for.
    static func size(of message: OutboundMessage) -> Int {
        switch message {
        case .text(let text): return text.utf8.count
        case .binary(let bytes), .ping(let bytes): return bytes.count
        }
    }

    /// Waits for room for `bytes`; false once ``close()`` was called.
    func acquire(_ bytes: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed && inFlight > 0 && inFlight + bytes > limit { condition.wait() }
        guard !closed else { return false }
        inFlight += bytes
        return true
    }

    /// A message was sent (or failed): its bytes make room.
    func release(_ bytes: Int) {
        condition.lock()
        inFlight -= bytes
        condition.signal()
        condition.unlock()
    }

    /// Nothing more will be sent: a waiting reader stops.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Records that some input was not sent (a line too long, a send that failed).
    func fail() {
        condition.lock()
        failure = true
        condition.unlock()
    }

    /// Whether some input was not sent.
    var failed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }
}
