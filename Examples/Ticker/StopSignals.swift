import Dispatch
import Foundation

/// SIGINT and SIGTERM call `stop` (once each time) instead of killing the process, so the
/// event being printed is finished and counted before Ticker exits.
enum StopSignals {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    @MainActor
    static func onStop(_ stop: @escaping @Sendable () -> Void) {
        for signal in [SIGINT, SIGTERM] {
            Foundation.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler(handler: stop)
            source.resume()
            sources.append(source)
        }
    }
}
