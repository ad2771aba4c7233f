#if os(Linux)
import CCurl
@_spi(Transport) import RealtimeCore
import RealtimeIO
import RealtimeTesting
import RealtimeTestSupport
import Testing
@testable import RealtimeSSE
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The production SSE connection with only its scheduler and curl embedded: a
/// ``ManualLoop`` whose time moves when the test says so, and a ``ScriptedCurl``. The test
/// plays libcurl by calling the connection's callbacks (header lines, body chunks, the
/// completion) on the loop. Nothing sleeps and nothing reads a clock.
final class EmbeddedSSE: @unchecked Sendable {
    typealias Connection = SSEConnection<ManualLoop, ScriptedCurl>

    let loop = ManualLoop()
    let curl = ScriptedCurl()
    let events: BoundedChannel<TransportEvent>
    let connection: LoopBound<Connection, ManualLoop>

    init(
        url: String = "http://example.test/stream", options: SSEOptions = EmbeddedSSE.quietOptions,
        configure: (inout TransportRequest) -> Void = { _ in }
    ) {
        var request = TransportRequest(url: URL(string: url)!)
        request.idleTimeout = nil
        configure(&request)
        let events = BoundedChannel<TransportEvent>(capacity: max(1, request.eventBufferCapacity))
        self.events = events
        let connection = Connection(request: request, options: options, loop: loop, sink: ChannelTestSink(events), curl: curl)
        self.connection = LoopBound(connection, loop: loop)
        // As SSETransport wires it: demand reaches the connection through the loop.
        let loop = self.loop
        events.setDemandHandler { [weak box = self.connection] in
            guard let box else { return }
            loop.execute { box.value.resume() }
        }
        EndOfTest.register { [self] in
            cancel()
            #expect(loop.pendingTimerCount == 0, "a timer outlived the cancelled attempt")
            #expect(loop.pendingTaskCount == 0, "work outlived the cancelled attempt")
        }
    }

    /// What `TransportEvents` does with a delivery: into the channel, which ends after `ended`.
    private final class ChannelTestSink: TransportSink {
        let channel: BoundedChannel<TransportEvent>

        init(_ channel: BoundedChannel<TransportEvent>) { self.channel = channel }

        func deliver(_ events: inout [TransportEvent]) -> Bool {
            let ends = if case .ended? = events.last { true } else { false }
            let more = channel.send(draining: &events)
            if ends { channel.finish() }
            return more
        }
    }

    /// No proxy from the environment: the tests' answers do not depend on the machine.
    static var quietOptions: SSEOptions {
        var options = SSEOptions()
        options.proxy = .none
        return options
    }

    var machine: SSEAttemptStateMachine<ManualLoop.Instant> { loop.onLoop { connection.value.machine } }

    // MARK: - Playing the caller

    func start() { loop.onLoop { connection.value.start() } }
    func cancel() { loop.onLoop { connection.value.cancel() } }
    func verify(within timeout: Duration) { loop.onLoop { connection.value.verify(within: timeout) } }
    func advance(by duration: Duration) { loop.advanceTime(by: duration) }

    // MARK: - Playing curl

    /// curl connected and is about to write the request.
    func requestStarting() { loop.onLoop { connection.value.requestStarting() } }

    /// One response head: the status line, `headers`, the blank line. Returns what the header
    /// callback returned for the blank line (0: abort).
    @discardableResult
    func head(_ status: Int, _ headers: [(String, String)] = [("Content-Type", "text/event-stream")]) -> Int {
        curl.responseStatus = status
        var last = 0
        var lines = ["HTTP/1.1 \(status) Status\r\n"] + headers.map { "\($0.0): \($0.1)\r\n" }
        lines.append("\r\n")
        for line in lines { last = headerLine(line) }
        return last
    }

    /// One raw header line; what the callback returned.
    @discardableResult
    func headerLine(_ line: String) -> Int {
        var bytes = Array(line.utf8)
        return loop.onLoop {
            bytes.withUnsafeMutableBytes { connection.value.headerLine($0.baseAddress, $0.count) }
        }
    }

    /// One body chunk inside one curl action (what curl deferred runs when it returns);
    /// what the write callback returned.
    @discardableResult
    func body(_ text: String) -> Int { body(Array(text.utf8)) }

    @discardableResult
    func body(_ chunk: [UInt8]) -> Int {
        var bytes = chunk
        return loop.onLoop {
            let taken = bytes.withUnsafeMutableBytes { connection.value.received($0.baseAddress, $0.count) }
            curl.actionReturns()
            return taken
        }
    }

    /// The transfer is over with `code`.
    func complete(_ code: CURLcode = CURLE_OK) { loop.onLoop { connection.value.completed(code) } }

    /// A 200 event stream, opened: returns the `opened` info.
    @discardableResult
    func open() -> ConnectionInfo? {
        start()
        requestStarting()
        head(200)
        for event in takeEvents() {
            if case .opened(let info) = event { return info }
        }
        return nil
    }

    // MARK: - What the connection reported

    /// Every event buffered now (taking them may let a paused transfer read again).
    func takeEvents(max: Int = 100_000) -> [TransportEvent] {
        var out: [TransportEvent] = []
        for _ in 0..<max {
            guard let event = events.poll() else { break }
            out.append(event)
        }
        loop.run()
        return out
    }

    /// The `ended` among the buffered events, if the attempt is over.
    func ended() -> TransportEnd? {
        for event in takeEvents() {
            if case .ended(let end) = event { return end }
        }
        return nil
    }

    static let pause = rt_curl_writefunc_pause()
}
#endif
