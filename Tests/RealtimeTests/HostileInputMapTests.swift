#if os(Linux)
import Foundation
import Testing

/// The hostile-input suite: every case a hostile server or network can inflict, what the user
/// sees, and the tests that hold it (`Suite.function`; the test below checks that each one
/// exists). New hostile tests live in the `Hostile*Tests.swift` files beside this one; the
/// rest were already in the suites named. "Known issue" marks a test that records the defect
/// with `withKnownIssue` until its fix lands (it then fails, asking for the marker to go).
///
/// Defects found by hostile testing, each with a regression test:
///
/// | # | case | what the user sees | covered by |
/// |---|---|---|---|
/// | 1.1 | `retry: 0`, then failures | delays from a 100 ms floor, growing; no storm | `EmbeddedHostileSSETests.aZeroRetryHintThenFailuresBacksOffFromTheFloor`, `RealtimeClientRetryStormTests`, `BackoffTests` |
/// | 1.2 | `retry:` above `backoff.maximum` | `retryIn` ≤ the maximum | `EmbeddedHostileSSETests.anEnormousRetryHintWaitsNoLongerThanTheBackoffsMaximum` |
/// | 1.3 | ping flood, peer never reads | `peer_not_reading`, RSS flat | `WebSocketPingFloodTests.pingFloodFromAPeerThatNeverReads`, `WebSocketSendMachineTests.bytesBoundTheQueueToo` |
/// | 1.4 | 1.1 MB `id:` | id ignored, resume with the last good id, never `internal` | `SSEParserLimitsTests.idBound`, `SSEConnectionEmbeddedHTTPTests.aHugeIDFromTheServerIsIgnoredAndTheStreamGoesOn`, `EmbeddedHostileSSETests.aHugeIDIsIgnoredAndTheResumeUsesTheLastGoodOne`, `SSEConnectionEmbeddedHTTPTests.aRequestHeadOverItsBoundIsRefusedBeforeCurlIsAsked`, `CurlErrorMappingTests.outOfMemory` |
/// | 1.5 | POST, server reads it then closes / resets / stays silent | exactly one request, `request_not_repeatable` | `RealtimeClientRequestDeliveryTests.neverRePosted`, `RealtimeClientRequestDeliveryTests.refusedIsRetried`, `SSETransportDeliveryTests.failedAfterTheRequest`, `HostileSecretTests.noSecretOnThePath` |
/// | 1.6 | `Content-Encoding: gzip`, unknown coding | decoded; `invalid_content_encoding`, one request | `SSETransportCompressionTests.decoded`, `SSETransportCompressionTests.unknownEncoding`, `SSETransportCompressionTests.corruptBody`, `RealtimeClientSSEHostileTests.compressedStreamResumesExactly`, `HostileSSETests.unknownEncodingIsNotRetried` |
/// | 1.7 | credential headers on a cross-origin redirect; https→http, wss→ws | dropped; `redirect` | `SSEConnectionEmbeddedRedirectTests.anotherOriginGetsNoVendorOrUserMarkedCredential`, `SSETransportRedirectTests.credentialTable`, `WebSocketEmbeddedCredentialTests.theCredentialTableThroughHandshakeRedirects`, `RtcatTests.sensitiveHeadersStayOnTheirOrigin`, `SSEHopTests.vendorCredentials`, `HostileWebSocketTests.vendorCredentialsStayOnTheirOrigin`, `WebSocketEmbeddedCredentialTests.urlCredentialsAndMarkedHeadersStayOnTheirOrigin`, `SSETransportTLSTests.httpsToHTTPRedirect`, `WebSocketCredentialTests.secureToPlainRedirectIsRefusedUnlessAllowed` |
/// | 1.8 | URL password | never printed (usage errors, events, logs) | `RtcatTests.usageErrorsNeverPrintAURLPassword`, `URLRedactionTests.randomPasswordsNeverSurvive`, `HostileSecretTests.noSecretOnThePath` |
/// | 1.9 | misleading errors | the reason on both transports; `protocol_violation`; `invalid_configuration` before I/O | `TransportErrorWordingTests.certificateReasons`, `HostileTLSTests.refused`, `SSETransportHostileTests.endlessHeaderLine`, `SSEConnectionEmbeddedHTTPTests.anUnsupportedProxySchemeIsRefusedBeforeCurlIsAskedWithoutQuotingIt`, `TransportErrorWordingTests.proxyScheme`, `WebSocketEmbeddedCredentialTests.urlCredentialsAreSentAsBasicAuthorizationAndNeverShown` |
/// | 1.10 | rtcat: 10 MiB line, `--max-event-size`, `--repeat-request` | one event; bounded; POST sent again | `RtcatTests.aTenMiBDataLineInTwoChunksIsOneEvent`, `RtcatTests.maxEventSizeBoundsEventsAndLines`, `RtcatTests.repeatRequestSendsThePOSTAgainOnReconnect` |
///
/// Hostile inputs that the SDK must keep handling:
///
/// | # | case | what the user sees | covered by |
/// |---|---|---|---|
/// | 4.1 | endless line | `line_too_long`, not retried, peak RSS +20 MiB | `HostileMemoryTests.floodsAndBombs`, `SSEConnectionEmbeddedTests.aParserLimitAbortsWithItsOwnError`, `SSEParserTests.lineTooLong` |
/// | 4.2 | 100 MB event | `event_too_large`, not retried, peak RSS +17 to +34 MiB | `HostileMemoryTests.floodsAndBombs`, `SSEParserTests.eventTooLarge` |
/// | 4.3 | invalid UTF-8 (default, strict) | U+FFFD; `invalid_utf8`; WebSocket 1007 | `EmbeddedHostileSSETests.invalidUTF8FailsAStrictStreamAndIsReplacedInALenientOne`, `SSEParserStrictUTF8Tests.strictRejects`, `SSEParserTests.invalidUTF8BecomesReplacement`, `WebSocketTestServerTests.protocolViolationsCloseWithTheRightCode`, `EmbeddedHostileWebSocketTests.aBadFrameFailsTheConnectionAtOnceWithItsErrorAndCloseCode` |
/// | 4.4 | NUL in data | delivered intact | `EmbeddedHostileSSETests.nulInDataArrivesIntactAndAnIDWithNULIsIgnoredByTheResume` |
/// | 4.5 | double BOM | one stripped, the second line ignored | `EmbeddedHostileSSETests.ofTwoBOMsTheFirstIsStrippedAndTheSecondSpoilsTheFirstLine`, `SSEParserTests.leadingBOMStrippedOnce` |
/// | 4.6 | `retry: 99999999999999999999` | a retry hint, bounded by `backoff.maximum` | `EmbeddedHostileSSETests.anEnormousRetryHintWaitsNoLongerThanTheBackoffsMaximum`, `SSEParserTests.retryDigitsOnly` |
/// | 4.7 | `id:` with NUL | ignored; resume with the last good id | `EmbeddedHostileSSETests.nulInDataArrivesIntactAndAnIDWithNULIsIgnoredByTheResume`, `SSEParserTests.idWithNULIgnored` |
/// | 4.8 | slow head | `connect_timeout`, retried, ≤ 2 attempts in 2 s | `HostileConnectionTests.slowHead`, `SSEConnectionEmbeddedTests.theConnectTimeoutEndsAnAttemptWithoutAHead`, `WebSocketEmbeddedTimerTests.connectTimeoutCoversTheHandshakeAnswer` |
/// | 4.9 | slow body (byte by byte) | whole events and messages | `SSEConnectionEmbeddedHTTPTests.multiByteUTF8DrippedByteByByteArrivesIntact`, `WebSocketTestServerTests.slowDripAssemblesWholeMessages` |
/// | 4.10 | bad chunk sizes | events before it; `protocol_violation` "malformed chunked body", retried | `HostileSSETests.badChunkSize`, `CurlErrorMappingTests.malformedChunkedBody` |
/// | 4.11 | HTTP/1.0, close-delimited body | events, clean end, resume | `HostileSSETests.http10CloseDelimited` |
/// | 4.12 | 1xx before 200 (before 101) | skipped (WebSocket: `handshake`, status 100) | `HostileSSETests.interimResponses`, `EmbeddedHostileWebSocketTests.aHandshakeThatMustNotOpenIsAHandshakeErrorNotRetried` |
/// | 4.13 | redirect loop | `redirect` after `maxRedirects`, not retried | `HostileConnectionTests.redirectLoop`, `SSEConnectionEmbeddedRedirectTests.exactlyMaxRedirectsAreFollowedAndOneMoreFails`, `WebSocketEmbeddedRedirectTests.oneRedirectMoreThanTheLimitFailsWithRedirect` |
/// | 4.14 | redirect to ftp:, file:, javascript:, data:, gopher:, ssh: | `redirect`, one request, Location never quoted | `HostileConnectionTests.nonHTTPRedirectTarget`, `SSEConnectionEmbeddedRedirectTests.anUnusableLocationFailsWithRedirectAndGoesNowhere`, `SSEHopTests.unusableLocation` |
/// | 4.15 | 2^63 frame length | 1002 (2^63-1: 1009 from the header alone) | `EmbeddedHostileWebSocketTests.aBadFrameFailsTheConnectionAtOnceWithItsErrorAndCloseCode`, `WebSocketFrameDecoderTests.framingViolations`, `WebSocketFrameDecoderTests.frameTooLargeIsReportedFromTheHeaderAlone` |
/// | 4.16 | fragmented or oversized control frames | 1002 | `WebSocketTestServerTests.protocolViolationsCloseWithTheRightCode`, `EmbeddedHostileWebSocketTests.aBadFrameFailsTheConnectionAtOnceWithItsErrorAndCloseCode`, `WebSocketFrameDecoderTests.framingViolations` |
/// | 4.17 | reserved opcodes | 1002, retried | `EmbeddedHostileWebSocketTests.aBadFrameFailsTheConnectionAtOnceWithItsErrorAndCloseCode`, `WebSocketFrameDecoderTests.framingViolations` |
/// | 4.18 | masked server frames | 1002 | `WebSocketTestServerTests.protocolViolationsCloseWithTheRightCode`, `WebSocketFrameDecoderTests.framingViolations` |
/// | 4.19 | bad close codes and payloads | 1002; 1007 for a bad reason | `EmbeddedHostileWebSocketTests.aBadFrameFailsTheConnectionAtOnceWithItsErrorAndCloseCode`, `WebSocketMessageAssemblerTests.validCloseCodes`, `WebSocketMessageAssemblerTests.protocolViolations` |
/// | 4.20 | compression bombs (WebSocket, SSE gzip) | `message_too_large` 1009 / `line_too_long`, peak RSS ≤ +31 MiB | `HostileMemoryTests.floodsAndBombs`, `WebSocketInflaterTests.decompressionBombIsBounded`, `WebSocketCompressionPeerTests.compressedMessageOverTheLimitFailsWith1009` |
/// | 4.21 | handshake defects | `handshake`, not retried, one request | `EmbeddedHostileWebSocketTests.aHandshakeThatMustNotOpenIsAHandshakeErrorNotRetried`, `WebSocketTestServerTests.wrongAcceptKeyFailsTheHandshake`, `WebSocketEmbeddedCompressionTests.anAcceptanceTheClientCannotHonourFailsTheHandshake`, `WebSocketHandshakeTests.invalidUpgradesAreHandshakeErrors` |
/// | 4.22 | TLS self-signed, wrong host, expired, pin mismatch, unknown CA | `tls` with the reason, not retried, one connection in 2 s | `HostileTLSTests.refused`, `WebSocketTLSFailureTests.expiredCertificate`, `SSETransportTLSTests.pinning`, `WebSocketTLSTests.pinnedKeyMismatchFails` |
/// | 4.23 | secrets across every error path | no token, cookie, key, URL password or body in any event or log | `HostileSecretTests.noSecretOnThePath`, `EmbeddedClientLoggingTests.theLifeCycleIsLoggedWithoutSecrets`, `HTTPHeadersTests.descriptionRedactsSecrets`, `WebSocketHandshakeTests.redactedDescriptionHidesCredentials` |
/// | 4.24 | flood after a WebSocket failure | the error at once: reading stops, the close frame goes out, TCP is closed (§7.1.7); the server writes the limit plus socket buffers | `EmbeddedHostileWebSocketTests.aBadFrameFailsTheConnectionAtOnceWithItsErrorAndCloseCode`, `HostileMemoryTests.floodsAndBombs`, `WebSocketConnectionStateMachineTests.protocolViolationFailsTheConnection`, `WebSocketConnectionStateMachineTests.failingEndsAtTheWriteDeadlineWhenThePeerDoesNotRead` |
/// | 4.25 | a consumer that stops reading, then resumes | the server stopped by TCP, nothing lost, no `idle_timeout` (the idle period restarts on resume) | `TransportConformanceTests.backPressure`, `WebSocketConnectionStateMachineTests.resumingReadsRestartsTheIdlePeriod`, `RealtimeClientBatchLoopbackTests.aStalledBatchConsumerStopsTheServerAndLosesNothing` |
/// | 4.26 | a WebSocket peer that talks but never reads while the app sends | `peer_not_reading` once no byte left for `writeTimeout`, senders released with `not_connected` | `WebSocketEmbeddedTimerTests.peerThatStopsReadingEndsWithPeerNotReading`, `WebSocketConnectionStateMachineTests.aPeerThatReadsNothingEndsWithPeerNotReading`, `WebSocketConnectionStateMachineTests.aSlowPeerThatReadsIsNeverEnded` |
/// | 4.27 | a refusal (503) with `Retry-After`, SSE or WebSocket handshake | `http_status`/`handshake` with status, body and `retryAfter`; the next attempt no sooner | `HostileConnectionTests.refusalRetryAfter`, `WebSocketHandshakeTests.refusalKeepsRetryAfterAsSecondsOrDateAndIgnoresGarbage`, `SSEConnectionEmbeddedHTTPTests.anErrorStatusIsTypedWithItsBodyAndRetryAfterSeconds` |
/// | 4.28 | a TLS server that resets, closes or stalls after the ClientHello; no version or cipher in common; a client certificate required | `network` / `connect_timeout`, retried with backoff; `tls` with the reason, not retried, one connection | `HostileTLSTests.handshake`, `SSETransportTLSTests.handshakeFault`, `WebSocketTLSFailureTests.handshakeFault`, `WebSocketTLSFailureTests.clientCertificateRequired`, `SSETransportTLSTests.clientCertificate`, `SSEConnectionEmbeddedTests.aFailedHandshakeEndsByItsCause` |
@Suite(.timeLimit(.minutes(1)))
struct HostileInputMapTests {
    /// `Suite.function` references in the map's rows.
    static func references(in source: String) -> [(row: String, suite: String, function: String)] {
        var found: [(String, String, String)] = []
        for line in source.split(separator: "\n") where line.hasPrefix("/// | ") && !line.hasPrefix("/// | #") {
            let row = String(line.dropFirst(6).prefix { $0 != " " })
            for match in line.matches(of: /`([A-Z][A-Za-z0-9]*Tests)\.([a-z][A-Za-z0-9]*)`/) {
                found.append((row, String(match.1), String(match.2)))
            }
        }
        return found
    }

    @Test("every row of the map names tests, and every test it names exists")
    func everyReferenceExists() throws {
        let here = URL(fileURLWithPath: #filePath)
        let testsRoot = here.deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: here, encoding: .utf8)
        let references = Self.references(in: source)
        let rows = Set(source.split(separator: "\n").filter { $0.hasPrefix("/// | ") && !$0.hasPrefix("/// | #") && !$0.hasPrefix("/// |---") }
            .map { String($0.dropFirst(6).prefix { $0 != " " }) })
        #expect(rows.count == 38, "rows: \(rows.sorted())")
        #expect(Set(references.map(\.row)) == rows, "a row without a test")

        // One suite per file, named after it: `Tests/<Target>/<Suite>.swift`.
        var files: [String: URL] = [:]
        let enumerator = FileManager.default.enumerator(at: testsRoot, includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL {
            if file.pathExtension == "swift" { files[file.deletingPathExtension().lastPathComponent] = file }
        }
        var sources: [String: String] = [:]
        for reference in references {
            guard let file = files[reference.suite] else {
                Issue.record("\(reference.row): no file \(reference.suite).swift")
                continue
            }
            if sources[reference.suite] == nil { sources[reference.suite] = try String(contentsOf: file, encoding: .utf8) }
            let text = sources[reference.suite] ?? ""
            #expect(text.contains("func \(reference.function)("), "\(reference.row): \(reference.suite).\(reference.function) not found")
        }
    }
}
#endif
