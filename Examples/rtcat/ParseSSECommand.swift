import RealtimeJSON
import Foundation
import Realtime

/// `rtcat parse-sse [--chunk N] [--quiet]`: reads raw SSE bytes from standard input, feeds
/// them to ``SSEParser`` in chunks of N bytes (default: as read, up to 1 MiB), and prints
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
        var sink = Sink(quiet: options.quiet, writer: JSONLineWriter(fileDescriptor: output))
        var parser = SSEParser()
        let failure: String?
        do {
            failure = try readAll(input, chunk: options.chunk) { bytes in
                // Non-escaping closures over locals: accesses are checked statically, not per
                // event at run time. Quiet mode borrows each event's bytes: no String per event.
                if sink.quiet {
                    try parser.feed(bytes, { _ in }, borrowing: { sink.count($0) })
                } else {
                    try parser.feed(bytes) { sink.print($0) }
                }
            }
        } catch {
            sink.finish()
            StandardError.write("rtcat parse-sse: \(error)\n")
            return Subcommand.failure
        }
        if let failure {
            sink.finish()
            StandardError.write("rtcat parse-sse: read error: \(failure)\n")
            return Subcommand.failure
        }
        parser.finish()
        sink.finish()
        return sink.writer.ok ? Subcommand.success : Subcommand.failure
    }

    /// What is printed: every event and retry, or with `--quiet` only the counts at the end.
    struct Sink {
        let quiet: Bool
        var writer: JSONLineWriter
        var events = 0
        var dataBytes = 0

        init(quiet: Bool, writer: JSONLineWriter) {
            self.quiet = quiet
            self.writer = writer
        }

        mutating func print(_ out: SSEParser.Output) {
            switch out {
            case .event(let e):
                events += 1
                dataBytes += e.data.utf8.count
                writer.write(["type": .string(e.type), "data": .string(e.data), "id": .string(e.lastEventID)])
            case .retry(let ms):
                writer.write(["retry": .int(ms)])
            case .comment:
                break  // not asked for
            }
        }

        /// Counts a borrowed event: its data's UTF-8 length once decoded, which is the byte
        /// count unless invalid sequences become U+FFFD (then the text is built to count it).
        mutating func count(_ e: SSEParser.BorrowedEvent) {
            events += 1
            dataBytes += e.isValidUTF8 ? e.data.count : e.decodedData().utf8.count
        }

        mutating func finish() {
            if quiet { writer.write(["events": .int(events), "dataBytes": .int(dataBytes)]) }
            writer.flush()
        }
    }

    /// Reads `input` to its end and hands the bytes to `feed`: as read (up to 1 MiB), or in
    /// pieces of exactly `chunk` bytes (the last one shorter). Returns the read error's text,
    /// nil at end of input; rethrows what `feed` throws.
    static func readAll(
        _ input: Int32, chunk: Int?, _ feed: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> String? {
        // A pipe holds 64 KiB by default: a bigger one (the kernel allows 1 MiB without
        // privileges) means fewer switches between the writer and us. Best effort.
        var info = stat()
        if fstat(input, &info) == 0, info.st_mode & S_IFMT == S_IFIFO { _ = fcntl(input, 1031 /* F_SETPIPE_SZ */, 1 << 20) }
        let readSize = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)
        defer { buffer.deallocate() }
        // Bytes read but not yet fed because they do not fill a whole --chunk.
        var carry: [UInt8] = []
        while true {
            let n = read(input, buffer.baseAddress, readSize)
            if n < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            if n == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            guard let chunk else {
                try feed(bytes)
                continue
            }
            carry.append(contentsOf: bytes)
            var start = 0
            while carry.count - start >= chunk {
                try carry.withUnsafeBytes { try feed(UnsafeRawBufferPointer(rebasing: $0[start..<start + chunk])) }
                start += chunk
            }
            carry.removeFirst(start)
        }
        if !carry.isEmpty { try carry.withUnsafeBytes { try feed($0) } }
        return nil
    }
}
