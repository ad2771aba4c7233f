import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// Runs the built `rtcat` binary against ``TestServer`` on loopback (the server lives in this
/// test process, so the requests rtcat made can be checked) and checks its JSON lines and exit
/// codes: `rtcat [options] URL` for SSE and WebSocket, and `rtcat demo`. The tests run in
/// parallel, each with its own server; at most three children run at once.
@Suite(.timeLimit(.minutes(3))) struct RtcatTests {
    static func rtcatURL() -> URL? { BuiltExecutable.url(named: "rtcat") }
    static let children = Slots(3)

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        /// Every stdout line parsed as a JSON object (a line that does not parse is recorded
        /// as an issue and left out).
        var objects: [[String: Any]] {
            lines.compactMap { line in
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                if object == nil { Issue.record("not a JSON object: \(line)") }
                return object
            }
        }
        func kinds() -> [String] { objects.map { $0["kind"] as? String ?? "?" } }
    }

    /// Runs rtcat with `arguments` and `input` on stdin; kills it after `timeout` seconds.
    /// `environment` replaces the inherited one when given (how process-wide settings such
    /// as `http_proxy` are tested without touching this process's environment).
    /// `executable` names another product of the package to run the same way (`LLMChat`).
    func rtcat(
        _ arguments: [String], input: String = "", timeout: Double = 30, environment: [String: String]? = nil,
        executable: String = "rtcat"
    ) async throws -> Run {
        try await rtcat(arguments, inputBytes: Array(input.utf8), timeout: timeout, environment: environment, executable: executable)
    }

    /// ``rtcat(_:input:timeout:environment:executable:)`` with raw bytes on stdin.
    func rtcat(
        _ arguments: [String], inputBytes: [UInt8], timeout: Double = 30, environment: [String: String]? = nil,
        executable: String = "rtcat"
    ) async throws -> Run {
        let run = try await Self.children.withSlot {
            try await offloaded {
                try Self.runBlocking(executable, arguments, input: inputBytes, timeout: timeout, environment: environment)
            }
        }
        #expect(run.status != -1, "\(executable) binary not found; run `swift build` first")
        #expect(!run.timedOut, "\(executable) \(arguments) did not finish in \(timeout) s")
        return run
    }

    private static func runBlocking(
        _ executable: String, _ arguments: [String], input: [UInt8], timeout: Double, environment: [String: String]?
    ) throws -> Run {
        guard let url = BuiltExecutable.url(named: executable) else {
            return Run(status: -1, stdout: "", stderr: "", timedOut: false)
        }
        let run = try SpawnedProcess.run(
            url.path, arguments, environment: environment, input: .bytes(input),
            timeout: .milliseconds(Int(timeout * 1000)))
        // Killed at the timeout: 128 + SIGKILL, as a shell reports it.
        return Run(
            status: run.termination?.status ?? 137, stdout: run.outputText, stderr: run.errorText,
            timedOut: run.termination == nil)
    }

    func startServer() throws -> TestServer {
        let server = TestServer()
        try server.start()
        return server
    }

    // MARK: SSE

    @Test func sseCountPrintsOpenAndEventsThenExitsZero() async throws {
        let server = try startServer()
        defer { server.stop() }
        let url = server.url("/sse?count=10").absoluteString
        let r = try await rtcat(["--count", "3", url])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.first == #"{"kind": "open", "transport": "sse", "url": "\#(url)", "status": 200, "attempt": 1}"#)
        #expect(Array(r.lines.dropFirst()) == (1...3).map { #"{"kind": "event", "type": "message", "data": "event \#($0)", "id": "\#($0)"}"# })
        #expect(r.kinds() == ["open", "event", "event", "event"])
    }

    @Test func httpStatusIsFatalAndExitsOne() async throws {
        let server = try startServer()
        defer { server.stop() }
        let r = try await rtcat([server.url("/sse?status=404").absoluteString])
        #expect(r.status == 1)
        let objects = r.objects
        #expect(objects.count == 1)
        #expect(objects.first?["kind"] as? String == "error")
        #expect(objects.first?["code"] as? String == "http_status")
        #expect(objects.first?["status"] as? Int == 404)
        #expect(objects.first?["willRetry"] as? Bool == false)
        #expect(objects.first?["retryIn"] == nil)
    }

    @Test func retriesExhaustedExitsOne() async throws {
        let server = try startServer()
        defer { server.stop() }
        let r = try await rtcat(["--max-retries", "2", "--backoff-initial", "0.1", "--backoff-max", "0.1",
                           server.url("/sse?status=503").absoluteString])
        #expect(r.status == 1)
        let objects = r.objects
        #expect(r.kinds() == ["error", "error", "error"])
        #expect(objects.prefix(2).allSatisfy { $0["willRetry"] as? Bool == true && ($0["retryIn"] as? Double ?? -1) >= 0.1 })
        #expect(objects.last?["code"] as? String == "retries_exhausted")
        #expect(objects.last?["willRetry"] as? Bool == false)
        #expect(server.requests(path: "/sse").count == 3)
    }

    @Test func usageErrorsExitTwo() async throws {
        let url = "http://127.0.0.1:9/sse"
        let cases: [[String]] = [
            [], ["--bogus", url], ["--count", "0", url], ["--count", url], ["ftp://example.com/x"],
            ["not a url"], [url, url], ["-H", "NoColon", url], ["-H", "Bad Name: x", url],
            ["--send", url], ["--ping-interval", "1", url], ["--cert", "c.pem", url],
            ["--backoff-initial", "5", "--backoff-max", "1", url], ["--pin", "md5//x", url],
            ["--backoff-initial", "0", url], ["--backoff-initial", "0.05", url], ["--backoff-max", "0", url],
            ["-d", "x", "ws://127.0.0.1:9/ws"], ["--idle-timeout", "-1", url], ["--no-compression", url],
            ["--no-compression=1", "ws://127.0.0.1:9/ws"], ["--max-event-size", "0", url],
            ["--max-event-size", "100", "ws://127.0.0.1:9/ws"], ["--strict-utf8", "ws://127.0.0.1:9/ws"],
            ["--repeat-request=1", url], ["--ping-mode", "fixed", url],
            ["--ping-mode", "sometimes", "ws://127.0.0.1:9/ws"], ["--sensitive-header", "Bad Name", url],
        ]
        for args in cases {
            let r = try await rtcat(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.contains("usage"), "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
    }

    @Test func usageErrorsNeverPrintAURLPassword() async throws {
        let secret = "pw-s3cret"
        let cases: [[String]] = [
            ["http://user:\(secret)@[::1"], ["http://127.0.0.1:9/sse", "http://user:\(secret)@127.0.0.1:9/other"],
            ["user:\(secret)@127.0.0.1:9/sse"], ["ftp://user:\(secret)@example.com/x"],
            ["--proxy", "http://127.0.0.1:9", "--bogus", "http://u:\(secret)@h/x"],
        ]
        for args in cases {
            let r = try await rtcat(args)
            #expect(r.status == 2, "\(args)")
            #expect(!r.stderr.contains(secret) && !r.stdout.contains(secret), "\(args): \(r.stderr)")
        }
    }

    @Test func headersReachTheServerAndNoValueIsPrinted() async throws {
        let server = try startServer()
        defer { server.stop() }
        let secret = "s3cret-token-value"
        let r = try await rtcat([
            "-H", "Authorization: Bearer \(secret)", "-H", "X-Trace:  abc ", "--count", "2",
            server.url("/sse?count=5&auth=\(secret)").absoluteString.replacingOccurrences(of: secret, with: "%73%33cret-token-value"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.kinds() == ["open", "event", "event"])
        let request = try #require(server.requests(path: "/sse").first)
        #expect(request.headers["Authorization"] == "Bearer \(secret)")
        #expect(request.headers["X-Trace"] == "abc")
        #expect(request.headers["Accept"] == "text/event-stream")

        // Without the header the server answers 401: fatal, and still no secret printed.
        let denied = try await rtcat(["-H", "Authorization: Bearer wrong-\(secret)", server.url("/sse?auth=other").absoluteString])
        #expect(denied.status == 1)
        #expect(denied.objects.last?["code"] as? String == "unauthorized")
        for text in [r.stdout, r.stderr, denied.stdout, denied.stderr] {
            #expect(!text.contains(secret))
        }

        // A password in the URL is used (Basic auth) but never printed: the opened URL has no userinfo.
        let withPassword = "http://alice:\(secret)@127.0.0.1:\(server.port)/sse?count=1"
        let basic = try await rtcat(["--count", "1", withPassword])
        #expect(basic.status == 0, "\(basic.stderr)")
        #expect(basic.objects.first?["url"] as? String == "http://127.0.0.1:\(server.port)/sse?count=1")
        #expect(!basic.stdout.contains(secret) && !basic.stderr.contains(secret))
        #expect(server.requests(path: "/sse").last?.headers["Authorization"]?.hasPrefix("Basic ") == true)
    }

    /// `--sensitive-header` adds to the built-in rule: through a redirect to another origin,
    /// on both transports, neither the marked header nor a built-in credential name goes
    /// along; a harmless header does.
    @Test(arguments: ["/sse?count=1", "/ws"]) func sensitiveHeadersStayOnTheirOrigin(path: String) async throws {
        let server = try startServer()
        let other = try startServer()
        defer { server.stop(); other.stop() }
        let isWebSocket = path == "/ws"
        let target = (isWebSocket ? other.wsURL(path) : other.url(path)).absoluteString
        server.setHandler(path: "/away") { writer in
            try writer.writeHead(status: 302, headers: ["Location": target], framing: .contentLength(0))
            try writer.finish()
        }
        let start = (isWebSocket ? server.wsURL("/away") : server.url("/away")).absoluteString
        let headers = ["-H", "X-Customer: c-1", "-H", "X-Credential: c-2", "-H", "X-Trace: t-3", "--sensitive-header", "x-customer"]
        // WebSocket: one line sent and echoed, then end of input closes; SSE: one event.
        let r = try await rtcat(headers + (isWebSocket ? ["--send", start] : ["--count", "1", start]), input: "hi\n")
        #expect(r.status == 0 && r.kinds().first == "open", "\(r.stderr)")
        let away = try #require(other.requests(path: String(path.prefix { $0 != "?" })).first)
        #expect(away.headers["X-Customer"] == nil && away.headers["X-Credential"] == nil)
        #expect(away.headers["X-Trace"] == "t-3")
        let first = try #require(server.requests(path: "/away").first)
        #expect(first.headers["X-Customer"] == "c-1" && first.headers["X-Credential"] == "c-2")
    }

    @Test func postBodyIsSentAndACleanEndWithoutReconnectExitsZero() async throws {
        let server = try startServer()
        defer { server.stop() }
        let body = #"{"prompt": "hi", "stream": true}"#
        let r = try await rtcat(["-d", body, "-H", "Content-Type: application/json", server.url("/sse?count=3").absoluteString])
        // A POST is not repeated after its reply ended: the end of the stream is the end.
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.kinds() == ["open", "event", "event", "event", "closed"])
        #expect(r.lines.last == #"{"kind": "closed", "clean": true, "willReconnect": false}"#)
        let requests = server.requests(path: "/sse")
        #expect(requests.count == 1)
        #expect(requests.first?.method == "POST")
        #expect(requests.first?.bodyText == body)
        #expect(!r.stdout.contains("prompt") && !r.stderr.contains("prompt"))

        let put = try await rtcat(["-X", "PUT", "-d", "x", "--finite", server.url("/sse?count=1").absoluteString])
        #expect(put.status == 0)
        #expect(server.requests(path: "/sse").last?.method == "PUT")
    }

    @Test func lastEventIDIsSentAndTheStreamResumesAfterIt() async throws {
        let server = try startServer()
        defer { server.stop() }
        let r = try await rtcat(["--last-event-id", "5", "--finite", server.url("/sse?count=8").absoluteString])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.objects.strings("id") == ["6", "7", "8"])
        #expect(server.requests(path: "/sse").first?.headers["Last-Event-ID"] == "5")
    }

    @Test func aCutStreamResumesWithLastEventIDAndEveryEventArrivesOnce() async throws {
        let server = try startServer()
        defer { server.stop() }
        let r = try await rtcat(["--backoff-initial", "0.1", "--backoff-max", "0.2", "--count", "10",
                           server.url("/sse?count=10&cuts=2&seed=3").absoluteString])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = r.objects
        #expect(objects.strings("id") == decimalIDs(1...10))
        let opens = objects.kind("open")
        #expect(opens.map { $0["attempt"] as? Int } == [1, 2, 3])
        // Each cut shows as an error the client retries, then a closed line.
        #expect(objects.kind("error").allSatisfy { $0["willRetry"] as? Bool == true })
        let resumes = server.requests(path: "/sse").map { $0.headers["Last-Event-ID"] }
        #expect(resumes.count == 3)
        #expect(resumes.first == .some(nil))
        #expect(resumes.dropFirst().allSatisfy { $0 != nil })
    }

    @Test func aTenMiBDataLineInTwoChunksIsOneEvent() async throws {
        let server = try startServer()
        defer { server.stop() }
        let size = 10 << 20
        server.setHandler(path: "/long-line") { w in
            try w.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            var line = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: size) + Array("\n\n".utf8)
            let half = line.count / 2
            try w.write(Array(line[..<half]))
            line.removeFirst(half)
            try w.write(line)
        }
        let r = try await rtcat(["--count", "1", server.url("/long-line").absoluteString], timeout: 60)
        #expect(r.status == 0, "\(r.stderr.prefix(500))")
        // Checked without parsing 10 MiB of JSON (other suites measure memory meanwhile).
        let lines = r.stdout.utf8.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == 2)
        let event = try #require(lines.last)
        #expect(event.starts(with: #"{"kind": "event", "type": "message", "data": "xxx"#.utf8))
        #expect(event.count == size + #"{"kind": "event", "type": "message", "data": "", "id": ""}"#.utf8.count)
    }

    @Test func maxEventSizeBoundsEventsAndLines() async throws {
        let server = try startServer()
        defer { server.stop() }
        // size=1500: 1.5 KB data lines, over a 1000-byte bound, within a 2000-byte one.
        let url = server.url("/sse?count=2&size=1500").absoluteString
        let small = try await rtcat(["--max-event-size", "1000", "--no-reconnect", url])
        #expect(small.status == 1)
        // The one data line is longer than event + `data: `: the line bound trips first.
        #expect(small.objects.last { $0["kind"] as? String == "error" }?["code"] as? String == "line_too_long", "\(small.stdout)")
        let large = try await rtcat(["--max-event-size", "2000", "--count", "2", url])
        #expect(large.status == 0, "\(large.stderr)")
        #expect(large.kinds() == ["open", "event", "event"])
    }

    @Test func repeatRequestSendsThePOSTAgainOnReconnect() async throws {
        let server = try startServer()
        defer { server.stop() }
        // Every connection is cut after 60 bytes; each resumes after the last id it saw.
        let url = server.url("/sse?count=6&cut=60&end=204").absoluteString
        let once = try await rtcat(["-d", "{}", "--backoff-initial", "0.1", url])
        #expect(once.status == 1)
        #expect(once.objects.last { $0["kind"] as? String == "error" }?["code"] as? String == "request_not_repeatable", "\(once.stdout)")
        #expect(server.requests(path: "/sse").count == 1)
        server.clearRequests()
        let repeated = try await rtcat(["-d", "{}", "--repeat-request", "--backoff-initial", "0.1", "--backoff-max", "0.1", url])
        #expect(repeated.status == 0, "\(repeated.stderr)")
        #expect(repeated.objects.strings("id") == decimalIDs(1...6))
        let posts = server.requests(path: "/sse")
        #expect(posts.count > 1)
        #expect(posts.allSatisfy { $0.method == "POST" && $0.bodyText == "{}" })
    }

    @Test func a204EndsWithoutReconnectAndExitsZero() async throws {
        let server = try startServer()
        defer { server.stop() }
        let r = try await rtcat(["--backoff-initial", "0.1", server.url("/sse?count=2&end=204").absoluteString])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.objects.strings("id") == ["1", "2"])
        // One open, one closed (the clean end that led to the resume, promising a reconnect);
        // the 204 withdraws that promise: the last line says no retry follows.
        let kinds = r.objects.strings("kind")
        #expect(kinds.filter { $0 == "open" }.count == 1)
        #expect(kinds.filter { $0 == "closed" }.count == 1)
        #expect(r.objects.dropLast().last?["willReconnect"] as? Bool == true)
        #expect(r.lines.last == #"{"kind": "error", "code": "stream_ended", "message": "stream_ended (204): the server asked not to reconnect", "status": 204, "willRetry": false}"#)
        #expect(server.requests(path: "/sse").last?.headers["Last-Event-ID"] == "2")
    }

    // MARK: WebSocket

    @Test func webSocketSendEchoesEachStdinLineAndEOFClosesCleanly() async throws {
        let server = try startServer()
        defer { server.stop() }
        let url = server.wsURL("/ws").absoluteString
        let r = try await rtcat(["--send", url], input: "one\ntwo words\r\nthree 🌍\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines == [
            #"{"kind": "open", "transport": "websocket", "url": "\#(url)", "status": 101, "attempt": 1}"#,
            #"{"kind": "event", "text": "one"}"#,
            #"{"kind": "event", "text": "two words"}"#,
            #"{"kind": "event", "text": "three 🌍"}"#,
            #"{"kind": "closed", "clean": true, "code": 1000, "reason": "", "willReconnect": false}"#,
        ])
        let session = try #require(server.webSocketSessions.first)
        #expect(session.textMessages == ["one", "two words", "three 🌍"])
        #expect(session.receivedClose)
        #expect(session.closeCode == 1000)
    }

    /// End of input starts the closing handshake; echoes still on their way (the server
    /// answers each after 300 ms, and our close after them) are printed until the server's
    /// close, then rtcat exits 0. `clean` says the server's close ended it: the 5 s close
    /// timeout ends it unclean.
    @Test func webSocketSendEOFPrintsWhatArrivesUntilTheServersClose() async throws {
        let server = try startServer()
        defer { server.stop() }
        let url = server.wsURL("/ws?echo_delay_ms=300").absoluteString
        let r = try await rtcat(["--send", url], input: "one\ntwo\nthree\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.kinds() == ["open", "event", "event", "event", "closed"], "\(r.stdout)")
        #expect(r.objects.dropFirst().prefix(3).map { $0["text"] as? String } == ["one", "two", "three"])
        #expect(r.objects.last?["clean"] as? Bool == true && r.objects.last?["code"] as? Int == 1000)
        #expect(r.objects.last?["willReconnect"] as? Bool == false)
        let session = try #require(server.webSocketSessions.first)
        #expect(session.textMessages == ["one", "two", "three"] && session.closeCode == 1000)
        #expect(server.webSocketSessions.count == 1, "no reconnect after our close")
    }

    /// A server that never answers the close: the close timeout (5 s) bounds the wait (the
    /// close is unclean: no answer came; the runner's 15 s is the hang guard, and the timer's
    /// length is the WebSocket machine's, tested on the embedded loop), and rtcat still exits
    /// 0 (the end of input ended the session, not a failure).
    @Test func webSocketSendEOFWaitsAtMostTheCloseTimeout() async throws {
        let server = try startServer()
        defer { server.stop() }
        let started = ContinuousClock.now
        let r = try await rtcat(["--send", server.wsURL("/ws?stall=1").absoluteString], input: "unanswered\n", timeout: 15)
        print("rtcat --send, close never answered: exited after \(ContinuousClock.now - started)")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.timedOut)
        #expect(r.kinds() == ["open", "closed"], "\(r.stdout)")
        #expect(r.objects.last?["clean"] as? Bool == false, "ended by the close timeout: \(r.stdout)")
        #expect(r.objects.last?["willReconnect"] as? Bool == false)
    }

    /// A server closing with 1012, 1013 or 1014 (IANA-registered "come back later" codes):
    /// rtcat prints `closed` with the code and reason and reconnects; the close frame rtcat
    /// sent back echoes the code (never a 1002 protocol error).
    @Test(arguments: [1012, 1013, 1014])
    func webSocketRetryLaterCloseIsEchoedAndReconnects(code: Int) async throws {
        let server = try startServer()
        defer { server.stop() }
        let url = server.wsURL("/ws?mode=send&count=1&close=\(code)&reason=later").absoluteString
        let r = try await rtcat(["--count", "2", "--backoff-initial", "0.1", "--backoff-max", "0.2", url])
        #expect(r.status == 0, "\(r.stderr)")
        let closed = try #require(r.objects.first { $0["kind"] as? String == "closed" }, "\(r.stdout)")
        #expect(closed["code"] as? Int == code && closed["reason"] as? String == "later", "\(r.stdout)")
        #expect(closed["clean"] as? Bool == true && closed["willReconnect"] as? Bool == true)
        #expect(r.kinds().filter { $0 == "open" }.count == 2, "\(r.stdout)")
        #expect(!r.stdout.contains("protocol_violation") && !r.stdout.contains("unassigned"), "\(r.stdout)")
        let first = try #require(server.webSocketSessions.first)
        #expect(first.closeCode == UInt16(code) && first.protocolErrorCode == nil)
    }

    /// A credential in the query (`?token=…`, `access_token`) never reaches rtcat's output:
    /// the `open` line shows the URL with those values as `***`, the other parameters kept;
    /// the server still got the real URL.
    @Test func queryCredentialsAreRedactedInOutput() async throws {
        let server = try startServer()
        defer { server.stop() }
        let ws = try await rtcat(["--finite", server.wsURL("/ws?mode=send&count=1&close=1000&token=S3cr3tWS").absoluteString])
        #expect(ws.status == 0, "\(ws.stderr)")
        #expect(!(ws.stdout + ws.stderr).contains("S3cr3tWS"), "\(ws.stdout)")
        let url = try #require(ws.objects.first?["url"] as? String)
        #expect(url.hasSuffix("/ws?mode=send&count=1&close=1000&token=***"), "\(url)")
        #expect(server.requests(path: "/ws").first?.target.contains("token=S3cr3tWS") == true)

        // The final URL of a redirect carries the credential: the open line hides it too.
        let to = "%2Fsse%3Fcount%3D1%26access_token%3DS3cr3tSSE"
        let sse = try await rtcat(["--count", "1", server.url("/redirect?n=1&to=\(to)").absoluteString])
        #expect(sse.status == 0, "\(sse.stderr)")
        #expect(!(sse.stdout + sse.stderr).contains("S3cr3tSSE"), "\(sse.stdout)")
        #expect((sse.objects.first?["url"] as? String)?.hasSuffix("/sse?count=1&access_token=***") == true, "\(sse.stdout)")
    }

    /// A line over the message limit (16 MiB) is reported, naming the limit, and rtcat exits
    /// 1; the lines before it were sent, it and those after it were not.
    @Test func webSocketSendLineOverTheLimitIsAnError() async throws {
        let server = try startServer()
        defer { server.stop() }
        let limit = 16 << 20
        let input = Array("first\n".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: limit + 1) + Array("\nafter\n".utf8)
        let r = try await rtcat(["--send", server.wsURL("/ws").absoluteString], inputBytes: input, timeout: 60)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("line 2 of standard input is longer than the message limit of \(limit) bytes"), "\(r.stderr)")
        #expect(r.kinds() == ["open", "event", "closed"], "\(r.stdout)")
        #expect(server.webSocketSessions.first?.textMessages == ["first"])

        // Exactly at the limit (with a CRLF ending) is a message like any other.
        let exact = [UInt8](repeating: UInt8(ascii: "b"), count: limit) + Array("\r\n".utf8)
        let ok = try await rtcat(["--send", server.wsURL("/ws").absoluteString], inputBytes: exact, timeout: 60)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(server.webSocketSessions.last?.messageCount == 1)
    }

    /// A peer that reads nothing: rtcat reads at most a few MiB of stdin ahead of what the
    /// connection took (the transport's queue, the outbox, 4 MiB of read-ahead), not the
    /// 200 MiB offered. Measured (peak RSS, VmHWM) after the write timeout has ended three
    /// connections in a row with peer_not_reading (the messages wait in the outbox for the
    /// next one), seconds in which an unbounded reader takes in most of the input.
    @Test func webSocketSendToAPeerThatDoesNotReadKeepsMemoryBounded() async throws {
        let server = try startServer()
        defer { server.stop() }
        let child = try ExampleProcess("rtcat", [
            "--send", "--write-timeout", "1", "--backoff-initial", "0.5", "--backoff-max", "0.5",
            server.wsURL("/ws?no_read=1").absoluteString,
        ])
        let input = String(repeating: String(repeating: "x", count: 1023) + "\n", count: 200 << 10)
        let feeder = Thread { child.write(input) }
        feeder.start()
        try await child.waitForLine("the third peer_not_reading", seconds: 60) { _ in
            child.lines.filter { $0.contains("peer_not_reading") }.count >= 3
        }
        let peak = try #require(child.peakResidentBytes)
        child.signal(SIGKILL)
        _ = await child.exitStatus()
        print("rtcat --send, 200 MiB of input, a peer that reads nothing: peak RSS \(peak >> 20) MiB after three peer_not_reading")
        #expect(peak < 100 << 20, "peak RSS \(peak >> 20) MiB for 200 MiB of input")
    }

    /// permessage-deflate is offered by default (the test server declines it, so messages flow
    /// uncompressed); `--no-compression` offers nothing.
    @Test func webSocketOffersDeflateUnlessNoCompression() async throws {
        let server = try startServer()
        defer { server.stop() }
        let url = server.wsURL("/ws?mode=send&count=1&close=1000").absoluteString
        let plain = try await rtcat(["--finite", url])
        #expect(plain.status == 0, "\(plain.stderr)")
        let off = try await rtcat(["--finite", "--no-compression", url])
        #expect(off.status == 0, "\(off.stderr)")
        let offers = server.requests(path: "/ws").map { $0.headers["Sec-WebSocket-Extensions"] }
        #expect(offers == ["permessage-deflate; client_max_window_bits", nil])
    }

    @Test func webSocketMessagesSubprotocolAndServerClose() async throws {
        let server = try startServer()
        defer { server.stop() }
        let text = try await rtcat([
            "--finite", "--protocol", "chat.v2", "--protocol", "chat.v1",
            server.wsURL("/ws?mode=send&count=2&close=1000&reason=done&protocol=*").absoluteString,
        ])
        #expect(text.status == 0, "\(text.stderr)")
        let objects = text.objects
        #expect(text.kinds() == ["open", "event", "event", "closed"])
        #expect(objects.first?["subprotocol"] as? String == "chat.v2")
        #expect(objects.strings("text") == ["message 1", "message 2"])
        #expect(text.lines.last == #"{"kind": "closed", "clean": true, "code": 1000, "reason": "done", "willReconnect": false}"#)
        #expect(server.requests(path: "/ws").first?.headers["Sec-WebSocket-Protocol"] == "chat.v2, chat.v1")

        let binary = try await rtcat(["--count", "1", server.wsURL("/ws?mode=send&count=1&binary=1&size=16").absoluteString])
        #expect(binary.status == 0, "\(binary.stderr)")
        let encoded = try #require(binary.objects.last?["binary"] as? String)
        let decoded = try #require(Data(base64Encoded: encoded))
        #expect(decoded.count == 16)
        #expect(decoded.starts(with: Data("message 1".utf8)))
    }

    @Test func webSocketCountClosesWithTheClosingHandshake() async throws {
        let server = try startServer()
        defer { server.stop() }
        let r = try await rtcat(["--count", "2", server.wsURL("/ws?mode=send&count=10&interval_ms=100").absoluteString])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.kinds() == ["open", "event", "event"])
        let session = try #require(server.webSocketSessions.first)
        #expect(session.receivedClose)
        #expect(session.closeCode == 1000)
    }

    @Test func webSocketRefusedUpgradeExitsOne() async throws {
        let server = try startServer()
        defer { server.stop() }
        let r = try await rtcat([server.wsURL("/ws?refuse=403").absoluteString])
        #expect(r.status == 1)
        #expect(r.kinds() == ["error"])
        #expect(r.objects.first?["willRetry"] as? Bool == false)
    }

    @Test func heartbeatOptionsDeclareASilentPeerDead() async throws {
        let server = try startServer()
        defer { server.stop() }
        let r = try await rtcat([
            "--ping-interval", "0.1", "--heartbeat-misses", "1", "--max-retries", "0",
            server.wsURL("/ws?ignore_pings=1").absoluteString,
        ])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.kinds() == ["open", "error", "closed"])
        let error = r.objects.dropFirst().first
        #expect(error?["code"] as? String == "retries_exhausted")
        #expect((error?["message"] as? String)?.contains("heartbeat_timeout") == true)
        #expect(r.objects.last?["willReconnect"] as? Bool == false)
        #expect((server.webSocketSessions.first?.pingsReceived ?? 0) >= 1)
    }

    // MARK: TLS

    static let certificates: Result<TestCertificates, any Error> = Result {
        try TestCertificates.shared()
    }

    @Test func tlsOptionsForHTTPSAndWSS() async throws {
        let certificates = try Self.certificates.get()
        let server = TestServer(configuration: .init(tls: .init(certificates: certificates)))
        try server.start()
        defer { server.stop() }
        let https = server.url("/sse?count=3").absoluteString
        let wss = server.wsURL("/ws").absoluteString

        // The test CA is not in the system store: a TLS failure is fatal.
        let untrusted = try await rtcat(["--count", "1", https])
        #expect(untrusted.status == 1)
        #expect(untrusted.objects.first?["code"] as? String == "tls")

        for args in [
            ["--cacert", certificates.caCertificateFile],
            ["--cacert", certificates.caCertificateFile, "--pin", certificates.serverPublicKeyPin],
            ["--insecure"],
        ] {
            let sse = try await rtcat(args + ["--count", "1", https])
            #expect(sse.status == 0, "\(args): \(sse.stderr)")
            #expect(sse.kinds() == ["open", "event"], "\(args)")
            let ws = try await rtcat(args + ["--send", wss], input: "over tls\n")
            #expect(ws.status == 0, "\(args): \(ws.stderr)")
            #expect(ws.objects.strings("text") == ["over tls"], "\(args)")
        }

        // A pin that does not match the server's key fails, even with the right CA.
        let wrongPin = try await rtcat([
            "--cacert", certificates.caCertificateFile, "--pin", "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
            "--count", "1", https,
        ])
        #expect(wrongPin.status == 1)
        #expect(wrongPin.objects.first?["code"] as? String == "tls")
    }

    @Test func clientCertificateOptions() async throws {
        let certificates = try Self.certificates.get()
        let server = TestServer(
            configuration: .init(tls: .init(certificates: certificates, requireClientCertificate: true)))
        try server.start()
        defer { server.stop() }
        let https = server.url("/sse?count=2").absoluteString
        let r = try await rtcat([
            "--cacert", certificates.caCertificateFile, "--cert", certificates.clientCertificateFile,
            "--key", certificates.clientKeyFile, "--count", "2", https,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.kinds() == ["open", "event", "event"])
        #expect(server.requests(path: "/sse").first?.clientCertificateSubject != nil)

        let without = try await rtcat(["--cacert", certificates.caCertificateFile, "--max-retries", "0", https])
        #expect(without.status == 1)
        #expect(without.kinds().first == "error")
    }

    // MARK: Demo

    @Test func demoShowsBothTransportsAndExitsZero() async throws {
        let r = try await rtcat(["demo"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let objects = r.objects
        let opens = objects.kind("open")
        #expect(opens.contains { $0["transport"] as? String == "sse" && $0["attempt"] as? Int == 1 })
        // The injected cut: a second SSE connection that resumed.
        #expect(opens.contains { $0["transport"] as? String == "sse" && ($0["attempt"] as? Int ?? 0) >= 2 })
        #expect(opens.contains { $0["transport"] as? String == "websocket" })
        let sseIDs = objects.strings("id")
        #expect(sseIDs == decimalIDs(1...10))
        let events = objects.kind("event")
        #expect(events.strings("text") == ["hello", "héllo wörld 🌍", #"{"type": "chat", "body": "hi"}"#])
        #expect(objects.strings("binary") == ["3q2+7w=="])
        let closes = objects.kind("closed")
        #expect(closes.last?["code"] as? Int == 1000)
        #expect(closes.last?["clean"] as? Bool == true)
        #expect(r.stderr.contains("== SSE"))
        #expect(r.stderr.contains("== WebSocket"))
        // The LLM reply: coalesced deltas (fewer lines than the 40 deltas), then finished.
        let reply = LLMReplyOptions(format: .openAI, query: ["count": "40"]).text()
        let deltas = objects.kind("delta").strings("text")
        #expect(deltas.joined() == reply)
        #expect(deltas.count < 40)
        #expect(objects.last?["kind"] as? String == "finished")
        #expect(objects.last?["text"] as? String == reply)
        #expect(r.stderr.contains("== LLM"))
    }
}

/// Typed lookups in rtcat's JSON lines. Written inline inside `#expect`, a closure like
/// `{ $0["id"] as? String }` costs the type checker close to a second per test; through these
/// functions it costs milliseconds.
extension Array where Element == [String: Any] {
    /// Each object's `key`, where it is a string.
    func strings(_ key: String) -> [String] { compactMap { $0[key] as? String } }
    /// The objects whose `kind` is `kind`.
    func kind(_ kind: String) -> [[String: Any]] { filter { $0["kind"] as? String == kind } }
}
