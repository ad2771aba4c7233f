import Foundation
import RealtimeMCP

// MCPClient: connects to an MCP server over Streamable HTTP, prints its tools, then calls
// one with progress, cancelling it when it runs longer than the timeout.
//
//   swift run MCPClient URL [TOOL [JSON-ARGUMENTS]]
//
// e.g. `swift run MCPClient http://127.0.0.1:8000/mcp progress '{"steps": 3, "delay": 0.2}'`

let arguments = Array(CommandLine.arguments.dropFirst())
guard let first = arguments.first, let url = URL(string: first), url.host != nil else {
    FileHandle.standardError.write(Data("usage: MCPClient URL [TOOL [JSON-ARGUMENTS]]\n".utf8))
    exit(2)
}

@Sendable func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func run() async -> Int32 {
    var configuration = MCPClient.Configuration()
    configuration.requestTimeout = .seconds(30)
    // The connection's types (`BackoffPolicy`, `RealtimeError`, …) come with `import RealtimeMCP`.
    configuration.transport.backoff = BackoffPolicy.exponential(initial: .milliseconds(500), maximum: .seconds(5))
    let client = MCPClient(url: url, configuration: configuration)
    // Servers may ask for the client's roots; answer with the working directory.
    await client.setRequestHandler("roots/list") { _ in
        ["roots": [["uri": .string("file://" + FileManager.default.currentDirectoryPath), "name": "cwd"]]]
    }
    let status: Int32
    do {
        let server = try await client.connect()
        say("connected: revision \(server.revision), server \(server.serverInfo?["name"]?.stringValue ?? "?")")
        for tool in try await client.allTools() {
            say("tool \(tool.name): \(tool.description ?? "")")
        }
        if arguments.count > 1 {
            status = try await call(client, tool: arguments[1], json: arguments.count > 2 ? arguments[2] : nil)
        } else {
            status = 0
        }
    } catch {
        say("error: \(error)")
        status = 1
    }
    await client.close()
    return status
}

func call(_ client: MCPClient, tool: String, json: String?) async throws -> Int32 {
    let callArguments = try json.map { try JSONValue(json: Data($0.utf8)) } ?? [:]
    let result = try await client.callTool(tool, arguments: callArguments) { progress in
        let total = progress.total.map { " of \($0)" } ?? ""
        say("progress \(progress.progress)\(total) \(progress.message ?? "")")
    }
    say("result: \(result.text)")
    return result.isError ? 1 : 0
}

let status = await run()
exit(status)
