import Foundation
import Realtime
import RealtimeMCP

/// `rtcat mcp [options] URL`: lists an MCP server's tools, or calls one, over Streamable
/// HTTP (``MCPClient``), printing JSON lines.
///
/// Exit status: 0 after the listing or a result; 1 after an error (also a result with
/// `isError`); 2 on a usage error.
enum MCPCommand {
    static let subcommand = Subcommand(
        name: "mcp",
        usage: "[--call NAME [--arguments JSON]] [--revision 2025-11-25|2026-07-28] [-H 'Name: value' ...] [--timeout S] URL",
        summary: "list an MCP server's tools (one JSON line each), or call one and print its progress and result\n"
            + MCPOptions.help,
        run: { await run($0) })

    static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            StandardError.write("usage: rtcat mcp \(subcommand.usage)\n\(MCPOptions.help)\n")
            return Subcommand.success
        }
        let options: MCPOptions
        do {
            options = try MCPOptions.parse(arguments)
        } catch {
            StandardError.write("rtcat mcp: \(error.message)\nusage: rtcat mcp \(subcommand.usage)\n")
            return Subcommand.usage
        }
        let client = MCPClient(url: options.url, configuration: options.configuration)
        let status: Int32
        do {
            try await client.connect()
            if let name = options.call {
                status = try await call(client, name, arguments: options.arguments)
            } else {
                for tool in try await client.allTools() { line(tool.json) }
                status = Subcommand.success
            }
        } catch {
            line(errorLine(error))
            status = Subcommand.failure
        }
        await client.close()
        return status
    }

    static func call(_ client: MCPClient, _ name: String, arguments: MCPValue) async throws -> Int32 {
        let result = try await client.callTool(name, arguments: arguments) { p in
            var fields: [String: MCPValue] = ["kind": "progress", "progress": .number(p.progress)]
            if let total = p.total { fields["total"] = .number(total) }
            if let message = p.message { fields["message"] = .string(message) }
            line(.object(fields))
        }
        var fields = result.json.objectValue ?? [:]
        fields["kind"] = "result"
        line(.object(fields))
        return result.isError ? Subcommand.failure : Subcommand.success
    }

    static func errorLine(_ error: any Error) -> MCPValue {
        guard let error = error as? MCPError else { return ["kind": "error", "code": "internal"] }
        var fields: [String: MCPValue] = ["kind": "error", "code": .string(error.code.description)]
        if let rpcCode = error.rpcCode { fields["rpcCode"] = .number(Double(rpcCode)) }
        if let message = error.message { fields["message"] = .string(message) }
        if let detail = error.detail { fields["detail"] = .string(detail) }
        if let status = error.status { fields["status"] = .number(Double(status)) }
        if let underlying = error.underlying { fields["cause"] = .string(underlying.code.description) }
        return .object(fields)
    }

    /// One JSON object per line on standard output (write(2): Glibc's `stdout` is not usable
    /// from Swift 6 concurrency).
    static func line(_ value: MCPValue) {
        FileHandle.standardOutput.write(value.jsonData + Data("\n".utf8))
    }
}

/// The command line of `rtcat mcp`, parsed and checked.
struct MCPOptions {
    var url: URL
    var call: String?
    var arguments: MCPValue = [:]
    var configuration = MCPClient.Configuration()

    static let help = """
            options (durations in seconds):
              --call NAME           call the tool NAME instead of listing the tools
              --arguments JSON      the call's arguments, a JSON object ({})
              --revision R          2025-11-25 (or 2025-06-18, 2025-03-26: initialize and a session)
                                    or 2026-07-28 (stateless); default: negotiate
              -H 'Name: value'      request header (repeatable), e.g. Authorization: Bearer …
              --timeout S           request timeout (60)
            output: one JSON object per line: each tool as the server lists it (with "name");
              with --call, {"kind": "progress", "progress": …, "total": …, "message": …} per
              progress notification, then {"kind": "result", "content": […], …};
              {"kind": "error", "code": …, "rpcCode": …, "message": …} on failure
            exit: 0 done; 1 error (or a result with isError); 2 usage error
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> MCPOptions {
        var url: URL?
        var o = MCPOptions(url: URL(string: "http://localhost")!)
        var cursor = ArgumentCursor(arguments)
        while cursor.advance() {
            switch cursor.option {
            case "--call": o.call = try cursor.value()
            case "--arguments":
                guard let value = try? MCPValue(json: Data(try cursor.value().utf8)), value.objectValue != nil else {
                    throw UsageError("--arguments must be a JSON object")
                }
                o.arguments = value
            case "--revision":
                let text = try cursor.value()
                let revision = MCPRevision(text)
                guard [MCPRevision.v2025_03_26, .v2025_06_18, .v2025_11_25, .v2026_07_28].contains(revision) else {
                    throw UsageError("--revision is 2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28, not '\(text)'")
                }
                o.configuration.revision = .fixed(revision)
            case "-H", "--header":
                let (name, value) = try ConnectOptions.headerField(try cursor.value())
                o.configuration.transport.headers.add(name: name, value: value)
            case "--timeout": o.configuration.requestTimeout = try cursor.seconds(allowZero: false)
            default:
                let arg = cursor.option
                if arg.hasPrefix("-") && arg.count > 1 { throw UsageError("unknown option '\(arg)'") }
                guard url == nil else { throw UsageError("more than one URL ('\(arg)')") }
                guard let parsed = URL(string: arg), parsed.host != nil, ["http", "https"].contains(parsed.scheme?.lowercased() ?? "")
                else { throw UsageError("'\(arg)' is not an http:// or https:// URL") }
                url = parsed
            }
        }
        guard let url else { throw UsageError("no URL given") }
        o.url = url
        return o
    }
}
