import Foundation

/// Ticker's command line: `--cursor FILE`, an http(s) URL or `--demo`, `--count N`.
struct TickerOptions {
    static let usage = """
        usage: Ticker --cursor FILE [--count N] URL     (http:// or https://)
               Ticker --cursor FILE [--count N] --demo
        """

    var url: URL?
    var demo = false
    var cursorPath = ""
    /// Stop after this many events (nil: follow the feed until stopped).
    var count: Int?

    /// The options, or a usage message on standard error and exit status 2.
    static func parseOrExit(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> TickerOptions {
        var o = TickerOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--demo":
                o.demo = true
            case "--cursor":
                guard let path = rest.popFirst(), !path.isEmpty else { fail("--cursor needs a file") }
                o.cursorPath = path
            case "--count":
                guard let n = rest.popFirst().flatMap(Int.init), n > 0 else { fail("--count needs a positive number") }
                o.count = n
            default:
                guard !argument.hasPrefix("-"), o.url == nil, let url = URL(string: argument), url.host != nil,
                    ["http", "https"].contains(url.scheme?.lowercased() ?? "")
                else { fail("'\(argument)' is not an option or an http(s) URL") }
                o.url = url
            }
        }
        if o.cursorPath.isEmpty { fail("--cursor FILE is required") }
        if o.demo == (o.url != nil) { fail("give a URL or --demo (not both)") }
        return o
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Ticker: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}
