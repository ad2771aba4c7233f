import Foundation

// LLMChat: a small command-line chat over `import Realtime`. Each line of standard input is a
// prompt; the reply streams back at a UI's pace (coalesced batches); a new prompt while a
// reply streams cancels that reply (a new generation); the model's reasoning, when the server
// streams it, is shown dimmed after `(thinking)`, apart from the answer (and not sent back in
// the conversation); errors are printed with their cause.
//
//   LLMChat [--format openai|anthropic] [--model NAME] [--token TOKEN] URL
//   LLMChat --demo [--format openai|anthropic]     (the embedded test server, echoing prompts
//                                                  after a line of reasoning)
//
// The token is sent as `Authorization: Bearer` (OpenAI) or `x-api-key` (Anthropic); it may
// also come from the LLMCHAT_TOKEN environment variable. Exit status: 0 when the last reply
// finished, 1 when it failed, 2 on a usage error.

let options: ChatOptions
do {
    options = try ChatOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("LLMChat: \(error.message)\n\(ChatOptions.usage)\n".utf8))
    exit(2)
}
exit(await ChatSession.run(options))
