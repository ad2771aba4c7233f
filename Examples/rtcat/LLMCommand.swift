import Foundation
import Realtime
import RealtimeLLM

/// `rtcat llm [options] -d BODY URL`: POSTs an LLM request once and prints the streamed
/// reply, decoded by its wire format, as JSON lines (``LLMReplyPrinter``, options in
/// ``LLMOptions``).
///
/// Exit status: 0 after `finished`; 1 after an `error` (an HTTP status, a cut, a truncated
/// reply, an error object in the stream, a reply over `--max-reply-bytes`, …); 2 on a usage
/// error.
enum LLMCommand {
    static let subcommand = Subcommand(
        name: "llm",
        usage: "[--format openai|anthropic|responses|gemini] [-H 'Name: value' ...] -d BODY [--coalesce SECONDS] [--max-retries N] [--max-reply-bytes N] [--lenient-utf8] [--background] URL",
        summary: "POST an LLM request once; print the streamed reply as JSON lines (deltas, reasoning, tool calls, finished or error)\n"
            + LLMOptions.help,
        run: { await run($0) })

    static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            StandardError.write("usage: rtcat llm \(subcommand.usage)\n\(LLMOptions.help)\n")
            return Subcommand.success
        }
        let options: LLMOptions
        do {
            options = try LLMOptions.parse(arguments)
        } catch {
            StandardError.write("rtcat llm: \(error.message)\nusage: rtcat llm \(subcommand.usage)\n")
            return Subcommand.usage
        }
        let client: RealtimeClient
        do {
            client = try RealtimeClient(url: options.url, configuration: options.configuration)
        } catch {
            var printer = LLMReplyPrinter(maxReplyBytes: options.maxReplyBytes)
            printer.print([.error(error as? RealtimeError ?? RealtimeError(.invalidConfiguration))])
            return printer.finish()
        }
        let printer = LLMReplyPrinter(maxReplyBytes: options.maxReplyBytes)
        switch options.format {
        case .openAI: return await stream(client, format: .openAI, coalesce: options.coalesce, printer)
        case .anthropic: return await stream(client, format: .anthropic, coalesce: options.coalesce, printer)
        case .responses: return await stream(client, format: .openAIResponses, coalesce: options.coalesce, printer)
        case .gemini: return await stream(client, format: .gemini, coalesce: options.coalesce, printer)
        }
    }

    /// Prints the reply until it ends or the printer's transcript fails (over the size
    /// limit): then the connection is closed at once, whatever the server still sends.
    static func stream<Decoder: LLMStreamDecoder>(
        _ client: RealtimeClient, format: Decoder, coalesce: Duration?, _ printer: LLMReplyPrinter = LLMReplyPrinter()
    ) async -> Int32 {
        var printer = printer
        let deltas = client.deltas(format: format)
        if let coalesce {
            for await batch in deltas.coalesced(every: coalesce) where !printer.print(batch) { break }
        } else {
            for await delta in deltas where !printer.print([delta]) { break }
        }
        client.close()
        return printer.finish()
    }
}
