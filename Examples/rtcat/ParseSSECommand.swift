import Foundation
import Realtime

/// `rtcat parse-sse [--chunk N] [--quiet]`: reads raw SSE bytes from standard input, feeds
/// them to ``SSEParser`` in chunks of N bytes (default: as read, up to 64 KiB), and prints
/// one JSON object per line:
///
/// - each dispatched event: `{"type": "<event type>", "data": "<data>", "id": "<last event id>"}`
/// - each valid `retry` field: `{"retry": <milliseconds>}`
/// - with `--quiet`, only one final line: `{"events": N, "dataBytes": M}` (M counts the UTF-8
///   bytes of the decoded data).
///
/// Exit status: 0 at end of input, 1 on a parser limit or read error (message on standard
/// error; output up to that point is printed), 2 on a usage error.
enum ParseSSECommand {
    static let subcommand = Subcommand(
        name: "parse-sse",
        usage: "[--chunk N] [--quiet]",
        summary: "parse SSE bytes from stdin; print events as JSON lines",
        run: { run($0, input: STDIN_FILENO, output: STDOUT_FILENO) }
    )

    struct Options: Equatable {
        var chunk: Int?
        var quiet = false
    }

    /// Parses the arguments; nil (after a message) on a usage error.
    static func parseOptions(_ arguments: [String]) -> Options? {
        var options = Options()
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--quiet", "-q":
                options.quiet = true
            case "--chunk":
                guard i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 else {
                    StandardError.write("rtcat parse-sse: --chunk needs a positive number of bytes\n")
                    return nil
                }
                options.chunk = n
                i += 1
            default:
                StandardError.write("rtcat parse-sse: unexpected argument '\(arguments[i])'\n")
                return nil
            }
            i += 1
        }
        return options
    }

    static func run(_ arguments: [String], input: Int32, output: Int32) -> Int32 {
        guard let options = parseOptions(arguments) else {
            StandardError.write("usage: rtcat parse-sse \(subcommand.usage)\n")
            return Subcommand.usage
        }
        var parser = SSEParser()
        var writer = JSONLineWriter(fileDescriptor: output)
        var events = 0
        var dataBytes = 0
        let chunk = options.chunk
        let quiet = options.quiet

        func emit(_ out: SSEParser.Output) {
            switch out {
            case .event(let e):
                events += 1
                dataBytes += e.data.utf8.count
                if !quiet { writer.write(["type": .string(e.type), "data": .string(e.data), "id": .string(e.lastEventID)]) }
            case .retry(let ms):
                if !quiet { writer.write(["retry": .int(ms)]) }
            }
        }
        func finishOutput() {
            if quiet { writer.write(["events": .int(events), "dataBytes": .int(dataBytes)]) }
            writer.flush()
        }

        // A fixed read buffer: a huge --chunk only makes `carry` grow (up to the input size).
        let readSize = 1 << 16
        var buffer = [UInt8](repeating: 0, count: readSize)
        // Bytes read but not yet fed because they do not fill a whole --chunk.
        var carry: [UInt8] = []
        do {
            while true {
                let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, readSize) }
                if n < 0 {
                    if errno == EINTR { continue }
                    finishOutput()
                    StandardError.write("rtcat parse-sse: read error: \(String(cString: strerror(errno)))\n")
                    return Subcommand.failure
                }
                if n == 0 { break }
                if let chunk {
                    carry.append(contentsOf: buffer[0..<n])
                    var start = 0
                    while carry.count - start >= chunk {
                        try carry.withUnsafeBytes { try parser.feed(UnsafeRawBufferPointer(rebasing: $0[start..<start + chunk]), emit) }
                        start += chunk
                    }
                    carry.removeFirst(start)
                } else {
                    try buffer.withUnsafeBytes { try parser.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n]), emit) }
                }
            }
            if !carry.isEmpty {
                try carry.withUnsafeBytes { try parser.feed($0, emit) }
            }
        } catch {
            finishOutput()
            StandardError.write("rtcat parse-sse: \(error)\n")
            return Subcommand.failure
        }
        parser.finish()
        finishOutput()
        return writer.ok ? Subcommand.success : Subcommand.failure
    }
}
