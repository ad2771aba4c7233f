import Dispatch
import Foundation

/// `kill -HUP <rtcat>` reconnects at once (``RealtimeClient/restart()``), keeping the resume
/// cursor: how a user tries a restart without a token to rotate. The signal's default action
/// (exit) is replaced for rtcat's lifetime only; standard input stays free for `--send`.
enum RestartSignal {
    static func install(_ restart: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler(handler: restart)
        source.resume()
        return source
    }
}
