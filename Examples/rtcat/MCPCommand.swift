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
        usage: "[--call NAME [--arguments JSON] | --listen KINDS [--resource URI ...] [--changes N]] [--elicit JSON|ask] [--roots URI,...] "
            + "[--revision 2025-11-25|2026-07-28] [-H 'Name: value' ...] [--timeout S] URL",
        summary: "list an MCP server's tools (one JSON line each), call one and print its progress and result, or print its changes\n"
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
            try await answerInputs(client, options)
            if let name = options.call {
                status = try await call(client, name, arguments: options.arguments)
            } else if let filter = options.listen {
                status = try await listen(client, filter, changes: options.changes)
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

    static func call(_ client: MCPClient, _ name: String, arguments: JSONValue) async throws -> Int32 {
        let result = try await client.callTool(name, arguments: arguments) { p in
            var fields: [String: JSONValue] = ["kind": "progress", "progress": .number(p.progress)]
            if let total = p.total { fields["total"] = .number(total) }
            if let message = p.message { fields["message"] = .string(message) }
            line(.object(fields))
        }
        var fields = result.json.objectValue ?? [:]
        fields["kind"] = "result"
        line(.object(fields))
        return result.isError ? Subcommand.failure : Subcommand.success
    }

    /// The answers `--elicit` and `--roots` give the server's requests (and the input
    /// requests of a 2026-07-28 multi-round call).
    static func answerInputs(_ client: MCPClient, _ options: MCPOptions) async throws {
        if options.elicitAsks {
            await client.setRequestHandler("elicitation/create") { params in await ElicitationPrompt.answer(params) }
        } else if let elicit = options.elicit {
            await client.setRequestHandler("elicitation/create") { _ in elicit }
        }
        if let roots = options.roots {
            let list = JSONValue.array(roots.map { ["uri": .string($0)] })
            await client.setRequestHandler("roots/list") { _ in ["roots": list] }
        }
    }

    /// `--listen`: a line per change until `changes` were printed (nil: until the server or
    /// the user ends it).
    static func listen(_ client: MCPClient, _ filter: MCPSubscriptionFilter, changes: Int?) async throws -> Int32 {
        var printed = 0
        for try await change in client.listen(filter) {
            switch change {
            case .listening(let honored):
                line(["kind": "listening", "tools": .bool(honored.toolsListChanged), "prompts": .bool(honored.promptsListChanged),
                      "resources": .bool(honored.resourcesListChanged), "uris": .array(honored.resourceURIs.map { .string($0) })])
            case .toolsListChanged: line(["kind": "change", "change": "tools"])
            case .promptsListChanged: line(["kind": "change", "change": "prompts"])
            case .resourcesListChanged: line(["kind": "change", "change": "resources"])
            case .resourceUpdated(let uri): line(["kind": "change", "change": "resource", "uri": .string(uri)])
            }
            if case .listening = change { continue }
            printed += 1
            if let changes, printed >= changes { break }
        }
        return Subcommand.success
    }

    static func errorLine(_ error: any Error) -> JSONValue {
        guard let error = error as? MCPError else { return ["kind": "error", "code": "internal"] }
        var fields: [String: JSONValue] = ["kind": "error", "code": .string(error.code.description)]
        if let rpcCode = error.rpcCode { fields["rpcCode"] = .number(Double(rpcCode)) }
        if let message = error.message { fields["message"] = .string(message) }
        if let detail = error.detail { fields["detail"] = .string(detail) }
        if let status = error.status { fields["status"] = .number(Double(status)) }
        if let underlying = error.underlying { fields["cause"] = .string(underlying.code.description) }
        return .object(fields)
    }

    /// One JSON object per line on standard output (write(2): Glibc's `stdout` is not usable
    /// from Swift 6 concurrency).
    static func line(_ value: JSONValue) {
        FileHandle.standardOutput.write(value.jsonData + Data("\n".utf8))
    }
}

/// The command line of `rtcat mcp`, parsed and checked.
struct MCPOptions {
    var url: URL
    var call: String?
    var arguments: JSONValue = [:]
    var listen: MCPSubscriptionFilter?
    var changes: Int?
    var elicit: JSONValue?
    /// `--elicit ask`: each elicitation is asked on the terminal.
    var elicitAsks = false
    var roots: [String]?
    var configuration = MCPClient.Configuration()

    static let help = """
            options (durations in seconds):
              --call NAME           call the tool NAME instead of listing the tools
              --arguments JSON      the call's arguments, a JSON object ({})
              --listen KINDS        print the server's changes instead: KINDS is a comma list of
                                    tools, prompts, resources (subscriptions/listen on 2026-07-28)
              --resource URI        with --listen, also the updates of this resource (repeatable)
              --changes N           with --listen, stop after N changes
              --elicit JSON|@PATH   answer every elicitation the server asks for with this result,
                                    e.g. {"action": "accept", "content": {"ok": true}}, or the one in a file
              --elicit ask          ask each elicitation on the terminal: its message and fields
                                    on stderr, the answers from stdin (accept/decline/cancel, then
                                    a line per field; end of input cancels)
              --roots URI,...       answer roots/list with these roots
              --revision R          2025-11-25 (or 2025-06-18, 2025-03-26: initialize and a session),
                                    2026-07-28 (stateless) or 2024-11-05 (HTTP+SSE); default: negotiate,
                                    falling back to HTTP+SSE when the server refuses Streamable HTTP
              -H 'Name: value'      request header (repeatable), e.g. Authorization: Bearer …
              --timeout S           request timeout (60)
            output: one JSON object per line: each tool as the server lists it (with "name");
              with --call, {"kind": "progress", "progress": …, "total": …, "message": …} per
              progress notification, then {"kind": "result", "content": […], …};
              with --listen, {"kind": "listening", "tools": …, "prompts": …, "resources": …,
              "uris": […]} when a stream is acknowledged, then {"kind": "change", "change":
              "tools"|"prompts"|"resources"|"resource", "uri": …} per change;
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
                guard let value = try? JSONValue(json: Data(try cursor.value().utf8)), value.objectValue != nil else {
                    throw UsageError("--arguments must be a JSON object")
                }
                o.arguments = value
            case "--listen":
                var filter = o.listen ?? MCPSubscriptionFilter()
                for kind in try cursor.value().split(separator: ",") {
                    switch kind {
                    case "tools": filter.toolsListChanged = true
                    case "prompts": filter.promptsListChanged = true
                    case "resources": filter.resourcesListChanged = true
                    default: throw UsageError("--listen takes tools, prompts, resources, not '\(kind)'")
                    }
                }
                o.listen = filter
            case "--resource":
                var filter = o.listen ?? MCPSubscriptionFilter()
                filter.resourceURIs.append(try cursor.value())
                o.listen = filter
            case "--changes":
                guard let n = Int(try cursor.value()), n > 0 else { throw UsageError("--changes must be a positive integer") }
                o.changes = n
            case "--elicit":
                let text = try cursor.value()
                if text == "ask" {
                    o.elicitAsks = true
                    continue
                }
                // `@PATH`: the answer is read from a file.
                let json = text.hasPrefix("@") ? FileManager.default.contents(atPath: String(text.dropFirst())) : Data(text.utf8)
                guard let json, let value = try? JSONValue(json: json), value["action"]?.stringValue != nil else {
                    throw UsageError("--elicit must be a JSON object with an action (or @PATH of a file holding one)")
                }
                o.elicit = value
            case "--roots": o.roots = try cursor.value().split(separator: ",").map(String.init)
            case "--revision":
                let text = try cursor.value()
                let revision = MCPRevision(text)
                guard [MCPRevision.v2024_11_05, .v2025_03_26, .v2025_06_18, .v2025_11_25, .v2026_07_28].contains(revision) else {
                    throw UsageError("--revision is 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28, not '\(text)'")
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
        if o.call != nil, o.listen != nil { throw UsageError("--call and --listen go apart") }
        o.url = url
        return o
    }
}
