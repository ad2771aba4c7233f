import Realtime
import RealtimeLLM

/// Collects a client's deltas until the reply ends.
enum LLMDeltaSequenceTestsSupport {
    static func collect<D: LLMStreamDecoder>(_ client: RealtimeClient, _ format: D) async -> [LLMDelta] {
        var deltas: [LLMDelta] = []
        for await delta in client.deltas(format: format) { deltas.append(delta) }
        return deltas
    }
}
