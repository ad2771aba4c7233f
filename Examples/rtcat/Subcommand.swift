/// One `rtcat` subcommand: its name, a usage line, and the function that runs it.
///
/// Exit codes are shared by every subcommand: ``success`` (0), ``failure`` (1, with a message
/// on standard error), ``usage`` (2, a usage error: bad option or argument).
struct Subcommand: Sendable {
    /// The first argument that selects it, e.g. `parse-sse`.
    let name: String
    /// Arguments after the name, for the usage text, e.g. `[--chunk N] [--quiet]`.
    let usage: String
    /// One line saying what it does.
    let summary: String
    /// Runs with the arguments that follow the name; returns the exit code.
    let run: @Sendable ([String]) async -> Int32

    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2

    /// Picks the subcommand named by `arguments[0]` (or `fallback` with all arguments) and
    /// runs it; prints the usage of every command and returns 2 when nothing matches.
    static func dispatch(_ arguments: [String], commands: [Subcommand], fallback: Subcommand?) async -> Int32 {
        if let first = arguments.first {
            if first == "-h" || first == "--help" || first == "help" {
                StandardError.write(usageText(commands, fallback: fallback))
                return success
            }
            if let command = commands.first(where: { $0.name == first }) {
                return await command.run(Array(arguments.dropFirst()))
            }
        }
        if let fallback, !arguments.isEmpty {
            return await fallback.run(arguments)
        }
        if let first = arguments.first { StandardError.write("rtcat: unknown command '\(first)'\n") }
        StandardError.write(usageText(commands, fallback: fallback))
        return usage
    }

    static func usageText(_ commands: [Subcommand], fallback: Subcommand?) -> String {
        var text = "usage:\n"
        for c in commands {
            text += "  rtcat \(c.name) \(c.usage)\n      \(c.summary)\n"
        }
        if let fallback {
            text += "  rtcat \(fallback.usage)\n      \(fallback.summary)\n"
        }
        return text
    }
}
