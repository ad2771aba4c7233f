#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// A Responses reply in background mode over the production SSE connection on the embedded
/// stack, reset at random points under 1,000 seeds and resumed with
/// `GET …/responses/{id}?stream=true&starting_after=N` (`ResumePlan.openAIResponses`): the
/// deltas equal the uncut reply's, one POST, one GET per cut, each GET after the last
/// sequence number delivered.
@Suite(.timeLimit(.minutes(2))) struct EmbeddedLLMResumeTests {
    @Test func randomCutsUnderAThousandSeedsLoseAndRepeatNothing() async throws {
        let events = LLMResumeTests.events
        var decoder = OpenAIResponsesDecoder()
        let whole = events.flatMap { (try? decoder.decode(LLMResumeTests.message($0))) ?? [] }
        var generator = SeededGenerator(seed: 29)
        for seed in 1...1000 {
            let count = Int.random(in: 1...3, using: &generator)
            let cuts = Set((0..<count).map { _ in Int.random(in: 0..<(events.count - 1), using: &generator) }).sorted()
            let deltas = try await Self.reply(events, cuts: cuts)
            guard deltas == whole else {
                Issue.record("seed \(seed), cuts \(cuts): \(deltas.count) deltas for \(whole.count)")
                return
            }
        }
    }

    /// The reply's events (SSE text), each request reset after the next of `cuts`.
    static func reply(_ events: [String], cuts: [Int]) async throws -> [LLMDelta] {
        let t = try EmbeddedClient("http://llm.test/v1/responses") {
            $0 = LLMResumeTests.configuration()
            $0.networkMonitor = nil
        }
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, OpenAIResponsesDecoder()) }
        var next = 0
        for (n, cut) in (cuts + [events.count - 1]).enumerated() {
            if n > 0 { await t.waitOutTheBackoff() }
            let server = try await t.sseAttempt(n + 1)
            #expect(server.request.method == (n == 0 ? "POST" : "GET"))
            if n > 0 { #expect(server.request.url.query?.hasSuffix("starting_after=\(next - 1)") == true) }
            server.respond()
            server.send(events[next...cut].joined())
            next = cut + 1
            if cut < events.count - 1 { server.reset() }
        }
        let deltas = await reply.value
        #expect(t.connectionCount == cuts.count + 1)
        return deltas
    }
}
#endif
