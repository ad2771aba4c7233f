import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestServer

/// One chat: prompts come in, replies stream out through ``LLMReplies`` (one generation per
/// prompt), the conversation so far goes with every request. An actor, so prompts and
/// batches, which arrive on two tasks, are handled (and printed) one at a time.
actor ChatSession {
    let options: ChatOptions
    let url: URL
    let replies = LLMReplies()
    private var history: [ChatRequest.Turn] = []
    /// The generation streaming now (started, its last batch not yet seen).
    private var streaming: Int?
    /// What the streaming reply has said so far (its answer, not its reasoning).
    private var partialText = ""
    /// Whether the last thing printed of the streaming reply is reasoning.
    private var showingReasoning = false
    private var inputEnded = false
    private(set) var lastReplyFailed = false

    init(options: ChatOptions, url: URL) {
        self.options = options
        self.url = url
    }

    /// Runs a chat on standard input and output; returns the exit status.
    static func run(_ options: ChatOptions) async -> Int32 {
        var server: TestServer?
        let url: URL
        if let given = options.url {
            url = given
        } else {
            do {
                server = try TestServer.runDemoServer()
            } catch {
                ChatPrinter.error("cannot start the demo server: \(error)")
                return 1
            }
            url = server!.url("/llm/\(options.format.rawValue)?echo=1&interval_ms=60&reasoning=1")
            ChatPrinter.note("demo server on \(url.absoluteString): it echoes each prompt, slowly; type a new prompt to interrupt")
        }
        let session = ChatSession(options: options, url: url)
        async let printing: Void = session.printReplies()
        for await prompt in PromptLines.stream() { await session.send(prompt) }
        await session.endOfInput()
        await printing
        server?.stop()
        return await session.lastReplyFailed ? 1 : 0
    }

    /// A new prompt: interrupts the reply that is streaming, if any, and starts the next.
    func send(_ prompt: String) {
        if streaming != nil {
            ChatPrinter.write("\n[interrupted by a new prompt]\n")
            keepReply(partialText)
        }
        history.append(ChatRequest.Turn(role: "user", content: prompt))
        ChatPrinter.write("you: \(prompt)\nassistant: ")
        partialText = ""
        showingReasoning = false
        do {
            let configuration = try requestConfiguration()
            switch options.format {
            case .openAI: streaming = try replies.start(url: url, configuration: configuration, format: .openAI)
            case .anthropic: streaming = try replies.start(url: url, configuration: configuration, format: .anthropic)
            }
        } catch {
            streaming = nil
            lastReplyFailed = true
            ChatPrinter.write("\n[error: \(error)]\n")
        }
    }

    func endOfInput() {
        inputEnded = true
        if streaming == nil { replies.close() }
    }

    private func printReplies() async {
        for await batch in replies.batches { show(batch) }
    }

    private func show(_ batch: LLMReplyBatch) {
        // Only the current generation reaches here: LLMReplies drops what is superseded.
        guard batch.generation == streaming else { return }
        for delta in batch.deltas { show(delta) }
        for call in batch.completedToolCalls { ChatPrinter.write("\n[tool call \(call.name)(\(call.arguments))]") }
        guard batch.isLast else { return }
        streaming = nil
        if showingReasoning { ChatPrinter.write(ChatPrinter.reasoningEnd) }
        let transcript = batch.transcript
        if let error = transcript.error {
            lastReplyFailed = true
            ChatPrinter.write("\n" + ChatPrinter.describe(error) + "\n")
        } else {
            lastReplyFailed = false
            ChatPrinter.write("\n" + ChatPrinter.describeEnd(transcript) + "\n")
        }
        keepReply(transcript.text)
        if inputEnded { replies.close() }
    }

    /// Reasoning dimmed and marked, apart from the answer; the answer as it comes.
    private func show(_ delta: LLMDelta) {
        switch delta {
        case .reasoning(let part) where part.kind == .text || part.kind == .summary:
            if !showingReasoning { ChatPrinter.write(ChatPrinter.reasoningStart) }
            showingReasoning = true
            ChatPrinter.write(part.fragment)
        case .text(let text), .refusal(let text):
            if showingReasoning { ChatPrinter.write(ChatPrinter.reasoningEnd) }
            showingReasoning = false
            if case .text = delta { partialText += text }
            ChatPrinter.write(text)
        default:
            break
        }
    }

    private func keepReply(_ text: String) {
        if !text.isEmpty { history.append(ChatRequest.Turn(role: "assistant", content: text)) }
    }

    private func requestConfiguration() throws -> RealtimeClient.Configuration {
        var request = ChatRequest(model: options.model, messages: history)
        var headers = HTTPHeaders()
        var bearer: String?
        switch options.format {
        case .openAI:
            request.streamOptions = ChatRequest.StreamOptions()
            bearer = options.token
        case .anthropic:
            if let token = options.token { headers.add(name: "x-api-key", value: token) }
            headers.add(name: "anthropic-version", value: "2023-06-01")
        }
        let terminator = options.format == .openAI ? OpenAIChatDecoder.terminator : AnthropicMessagesDecoder.terminator
        var configuration = try RealtimeClient.Configuration.llm(
            json: request, bearerToken: bearer, headers: headers, terminator: terminator)
        configuration.connectTimeout = .seconds(10)
        return configuration
    }
}
