import Foundation
import Realtime
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeWebSocket

/// `rtcat autobahn ws://HOST:PORT [--agent NAME] [--cases N-M] [--no-compression]`: the
/// Autobahn|Testsuite client protocol against a fuzzing server. Asks `/getCaseCount`, runs
/// `/runCase?case=N&agent=NAME` for every case (echoing each text and binary message back
/// unchanged, message by message), then `/updateReports?agent=NAME`. One
/// ``WebSocketTransport`` per case, no reconnect. permessage-deflate is offered with the
/// transport's default offer (`permessage-deflate; client_max_window_bits`), which every
/// server acceptance of cases 12.x and 13.x can answer; `--no-compression` offers nothing.
enum AutobahnCommand {
    static let subcommand = Subcommand(
        name: "autobahn",
        usage: "ws://HOST:PORT [--agent NAME] [--cases FIRST-LAST] [--no-compression] [--verbose]",
        summary: "runs the Autobahn|Testsuite client protocol (echo every case) against a fuzzing server",
        run: { await AutobahnCommand.run($0) })

    static let usage = "usage: rtcat autobahn \(subcommand.usage)\n"

    static func run(_ arguments: [String]) async -> Int32 {
        var base: String?
        var agent = "swift-realtime"
        var range: ClosedRange<Int>?
        var verbose = false
        var compression = WebSocketOptions.Compression.default
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--agent" where i + 1 < arguments.count:
                agent = arguments[i + 1]
                i += 1
            case "--cases" where i + 1 < arguments.count:
                let parts = arguments[i + 1].split(separator: "-").compactMap { Int($0) }
                if parts.count == 2, parts[0] <= parts[1] { range = parts[0]...parts[1] }
                else if parts.count == 1 { range = parts[0]...parts[0] }
                else { return fail(usage) }
                i += 1
            case "--verbose":
                verbose = true
            case "--no-compression":
                compression = .disabled
            default:
                if base == nil, arg.hasPrefix("ws://") || arg.hasPrefix("wss://") { base = arg } else { return fail(usage) }
            }
            i += 1
        }
        guard var base else { return fail(usage) }
        while base.hasSuffix("/") { base.removeLast() }
        let agentQuery = agent.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? agent

        guard let countText = await runSession(url: "\(base)/getCaseCount", echo: false, verbose: verbose).firstText,
              let count = Int(countText.trimmingCharacters(in: .whitespaces)), count >= 0
        else {
            return fail("rtcat autobahn: no case count from \(base)/getCaseCount\n", code: Subcommand.failure)
        }
        let cases = range.map { max($0.lowerBound, 1)...min($0.upperBound, count) } ?? (count > 0 ? 1...count : 1...0)
        log("rtcat autobahn: \(count) cases, running \(cases.count)\n")
        for n in cases {
            let result = await runSession(
                url: "\(base)/runCase?case=\(n)&agent=\(agentQuery)", echo: true, verbose: verbose, compression: compression)
            if verbose {
                log("case \(n): \(result.messages) messages, end: \(result.end.map { "\($0)" } ?? "-")\n")
            }
        }
        let report = await runSession(url: "\(base)/updateReports?agent=\(agentQuery)", echo: false, verbose: verbose)
        if report.end?.clean != true {
            return fail("rtcat autobahn: /updateReports did not close cleanly\n", code: Subcommand.failure)
        }
        log("rtcat autobahn: done\n")
        return 0
    }

    struct SessionResult {
        var firstText: String?
        var messages = 0
        var end: TransportEnd?
    }

    /// One WebSocket connection: collect (and optionally echo) messages until it ends.
    static func runSession(
        url: String, echo: Bool, verbose: Bool, compression: WebSocketOptions.Compression = .disabled
    ) async -> SessionResult {
        var result = SessionResult()
        guard let url = URL(string: url) else { return result }
        var request = TransportRequest(url: url)
        request.idleTimeout = nil
        request.connectTimeout = .seconds(30)
        var options = WebSocketOptions()
        // Cases 9.x send up to 16 MiB; the fuzzing server needs no heartbeat.
        options.maxFrameSize = 64 << 20
        options.maxMessageSize = 64 << 20
        options.heartbeat = .disabled
        options.closeTimeout = .seconds(3)
        options.compression = compression
        let transport = WebSocketTransport(request: request, options: options, eventLoop: .shared)
        for await event in TransportEvents(transport, capacity: request.eventBufferCapacity) {
            switch event {
            case .opened, .retryHint, .messages:
                break  // a WebSocket transport sends no batches
            case .message(let message):
                result.messages += 1
                if result.firstText == nil { result.firstText = message.text }
                guard echo else { continue }
                let reply: OutboundMessage
                switch message.content {
                case .text(let text): reply = .text(text)
                case .binary(let bytes): reply = .binary(bytes)
                }
                do {
                    try await transport.send(reply)
                } catch {
                    if verbose { log("send failed: \(error)\n") }
                }
            case .ended(let end):
                result.end = end
            }
        }
        return result
    }

    static func log(_ text: String) {
        StandardError.write(text)
    }

    static func fail(_ text: String, code: Int32 = Subcommand.usage) -> Int32 {
        log(text)
        return code
    }
}
