import Foundation

// rtcat: one command-line tool with several subcommands. Each subcommand lives in its own
// file as a `Subcommand` value; add it to this list. `fallback` runs when the first argument
// names no subcommand (reserved for `rtcat [options] URL`).
let commands: [Subcommand] = [
    ParseSSECommand.subcommand,
    AutobahnCommand.subcommand,
    DemoCommand.subcommand,
    LLMCommand.subcommand,
    MCPCommand.subcommand,
]

exit(await Subcommand.dispatch(Array(CommandLine.arguments.dropFirst()), commands: commands, fallback: ConnectCommand.subcommand))
