import Foundation
import Realtime

/// `rtcat [options] URL`: connects through ``RealtimeClient`` (SSE for `http`/`https`,
/// WebSocket for `ws`/`wss`) and prints each ``ClientEvent`` as one JSON line (format in
/// ``ConnectEventFormat``, options in ``ConnectOptions``).
///
/// Exit status: 0 after `--count` events or when the events end without the client giving up;
/// 1 when it gives up (a fatal error, or retries exhausted) or `--send` input was left unsent
/// (a line over the message limit); 2 on a usage error.
enum ConnectCommand {
    static let subcommand = Subcommand(
        name: "",
        usage: "[options] URL",
        summary: "connect (SSE for http/https, WebSocket for ws/wss); print each event as a JSON line\n"
            + ConnectOptions.help,
        run: { await run($0) })

    static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            StandardError.write("usage: rtcat \(subcommand.usage)\n\(ConnectOptions.help)\n")
            return Subcommand.success
        }
        let options: ConnectOptions
        do {
            options = try ConnectOptions.parse(arguments)
        } catch {
            StandardError.write("rtcat: \(error.message)\nusage: rtcat \(subcommand.usage)   (rtcat --help lists the options)\n")
            return Subcommand.usage
        }
        var session = ConnectSession(url: options.url, configuration: options.configuration)
        session.count = options.count
        if options.send {
            let flow = InputFlow()
            session.outgoing = StandardInputLines.textMessages(flow: flow)
            session.outgoingFlow = flow
        }
        return await session.run().status
    }
}
