import Foundation

/// Chat's command line: a ws:// or wss:// URL, or `--demo`; `--ping SECONDS` (default 15).
struct ChatOptions {
    static let usage = """
        usage: Chat [--ping SECONDS] URL     (ws:// or wss://)
               Chat --demo
        """

    var url: URL?
    var demo = false
    /// The fixed heartbeat's interval.
    var ping = Duration.seconds(15)

    /// The options, or a usage message on standard error and exit status 2.
    static func parseOrExit(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> ChatOptions {
        var o = ChatOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--demo":
                o.demo = true
            case "--ping":
                guard let seconds = rest.popFirst().flatMap(Double.init), seconds > 0 else { fail("--ping needs a positive number of seconds") }
                o.ping = .milliseconds(Int64(seconds * 1000))
            default:
                guard !argument.hasPrefix("-"), o.url == nil, let url = URL(string: argument), url.host != nil,
                    ["ws", "wss"].contains(url.scheme?.lowercased() ?? "")
                else { fail("'\(argument)' is not an option or a ws(s) URL") }
                o.url = url
            }
        }
        if o.demo == (o.url != nil) { fail("give a URL or --demo (not both)") }
        return o
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Chat: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}
