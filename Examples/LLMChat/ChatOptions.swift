import Foundation

/// LLMChat's command line.
struct ChatOptions {
    struct UsageError: Error {
        let message: String
    }

    enum Format: String {
        case openAI = "openai"
        case anthropic
    }

    static let usage = """
        usage: LLMChat [--format openai|anthropic] [--model NAME] [--token TOKEN] URL
               LLMChat --demo [--format openai|anthropic]
        """

    var format = Format.openAI
    var model = "test-model"
    var token: String?
    /// nil with `--demo`: the embedded test server's URL is used.
    var url: URL?
    var demo = false

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> ChatOptions {
        var o = ChatOptions()
        o.token = environment["LLMCHAT_TOKEN"]
        var rest = arguments[...]
        func value(_ option: String) throws(UsageError) -> String {
            guard let v = rest.popFirst() else { throw UsageError(message: "\(option) needs a value") }
            return v
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--format":
                let name = try value(argument)
                guard let format = Format(rawValue: name) else { throw UsageError(message: "--format is openai or anthropic") }
                o.format = format
            case "--model": o.model = try value(argument)
            case "--token": o.token = try value(argument)
            case "--demo": o.demo = true
            default:
                guard !argument.hasPrefix("-"), o.url == nil, let url = URL(string: argument), url.host != nil,
                    ["http", "https"].contains(url.scheme?.lowercased() ?? "")
                else { throw UsageError(message: "'\(argument)' is not an option or an http(s) URL") }
                o.url = url
            }
        }
        guard o.demo != (o.url != nil) else { throw UsageError(message: "give a URL or --demo (not both)") }
        return o
    }
}
