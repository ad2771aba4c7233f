#if os(Linux)
import CCurl
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``SSECurl`` with no easy handle: it records what the connection asks of curl and
/// answers what the test scripts (the status of a head, a setup failure, a failure's
/// details). The test plays curl itself by calling the connection's callbacks.
///
/// Loop-confined: used on the connection's loop thread only.
package final class ScriptedCurl: SSECurl {
    package init() {}

    package weak var callbacks: (any SSECurlCallbacks)?
    package let arenaCursor = SSEArenaCursor()

    /// Every request the connection began or redirected to, in order.
    package private(set) var hops: [SSEHop] = []
    package private(set) var unpauses = 0
    package private(set) var kicks = 0
    /// True once the connection freed the handle.
    package private(set) var ended = false
    /// What the connection asked to run when the current curl action returns.
    private var afterAction: [() -> Void] = []

    /// Refuses the next ``begin(_:)`` or ``redirect(to:)`` with this error.
    package var setupFailure: RealtimeError?
    package var responseStatus = 0
    package var httpVersion: String? = "1.1"
    package var effectiveURL: URL?
    /// Reported with a failed result.
    package var osErrno: Int32 = 0
    /// curl's error text (`CURLOPT_ERRORBUFFER`), reported with a failed result.
    package var errorMessage = ""
    package var requestSizeIsZero = false

    /// Whether a transfer is attached (begun or redirected, and not ended).
    package var isAttached: Bool { !hops.isEmpty && !ended }

    package func begin(_ hop: SSEHop) -> RealtimeError? {
        precondition(hops.isEmpty, "begin twice")
        hops.append(hop)
        return takeSetupFailure()
    }

    package func redirect(to hop: SSEHop) -> RealtimeError? {
        precondition(!ended, "redirect after end")
        hops.append(hop)
        return takeSetupFailure()
    }

    private func takeSetupFailure() -> RealtimeError? {
        defer { setupFailure = nil }
        return setupFailure
    }

    package func unpause() { unpauses += 1 }
    package func kick() { kicks += 1 }
    package func connectionReady() {}
    package func responseHeadArrived() {}

    package func runAfterCurrentAction(_ body: @escaping () -> Void) {
        afterAction.append(body)
    }

    /// curl returns from its action: what the connection deferred runs now.
    package func actionReturns() {
        let bodies = afterAction
        afterAction = []
        for body in bodies { body() }
    }

    package func end() {
        ended = true
        afterAction = []
    }

    package func result(of code: CURLcode) -> SSETransferResult {
        guard code != CURLE_OK else { return SSETransferResult() }
        let f = CurlErrorMapping.Failure(code: code, stage: .beforeRequest, osErrno: osErrno, message: errorMessage)
        return SSETransferResult(failure: f, nothingSent: code == CURLE_OUT_OF_MEMORY && requestSizeIsZero)
    }
}
#endif
