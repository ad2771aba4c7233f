#if os(Linux)
import CCurl
import RealtimeCore
@testable import RealtimeSSE
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``SSECurl`` with no easy handle: it records what the connection asks of curl and
/// answers what the test scripts (the status of a head, a setup failure, a failure's
/// details). The test plays curl itself by calling the connection's callbacks.
final class ScriptedCurl: SSECurl {
    weak var callbacks: (any SSECurlCallbacks)?
    let arenaCursor = SSEArenaCursor()

    /// Every request the connection began or redirected to, in order.
    private(set) var hops: [SSEHop] = []
    private(set) var unpauses = 0
    private(set) var kicks = 0
    /// True once the connection freed the handle.
    private(set) var ended = false
    /// What the connection asked to run when the current curl action returns.
    private var afterAction: [() -> Void] = []

    /// Refuses the next ``begin(_:)`` or ``redirect(to:)`` with this error.
    var setupFailure: RealtimeError?
    var responseStatus = 0
    var httpVersion: String? = "1.1"
    var effectiveURL: URL?
    /// Reported with a failed result.
    var osErrno: Int32 = 0
    var requestSizeIsZero = false

    /// Whether a transfer is attached (begun or redirected, and not ended).
    var isAttached: Bool { !hops.isEmpty && !ended }

    func begin(_ hop: SSEHop) -> RealtimeError? {
        precondition(hops.isEmpty, "begin twice")
        hops.append(hop)
        return takeSetupFailure()
    }

    func redirect(to hop: SSEHop) -> RealtimeError? {
        precondition(!ended, "redirect after end")
        hops.append(hop)
        return takeSetupFailure()
    }

    private func takeSetupFailure() -> RealtimeError? {
        defer { setupFailure = nil }
        return setupFailure
    }

    func unpause() { unpauses += 1 }
    func kick() { kicks += 1 }

    func runAfterCurrentAction(_ body: @escaping () -> Void) {
        afterAction.append(body)
    }

    /// curl returns from its action: what the connection deferred runs now.
    func actionReturns() {
        let bodies = afterAction
        afterAction = []
        for body in bodies { body() }
    }

    func end() {
        ended = true
        afterAction = []
    }

    func result(of code: CURLcode) -> SSETransferResult {
        guard code != CURLE_OK else { return SSETransferResult() }
        var f = CurlErrorMapping.Failure(code: code, stage: .beforeRequest)
        f.osErrno = osErrno
        return SSETransferResult(failure: f, nothingSent: code == CURLE_OUT_OF_MEMORY && requestSizeIsZero)
    }
}
#endif
