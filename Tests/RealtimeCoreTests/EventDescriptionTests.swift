import Foundation
import RealtimeCore
import Testing

/// What `print(event)` shows: short, readable, durations to the millisecond, and never a
/// secret (header values, URL credentials, query strings).
@Suite(.timeLimit(.minutes(1))) struct EventDescriptionTests {
    @Test(arguments: [
        (Duration.zero, "0 ms"), (.milliseconds(250), "250 ms"), (.nanoseconds(999_999_999), "1 s"),
        (.milliseconds(1500), "1.5 s"), (.milliseconds(1234), "1.234 s"), (.seconds(30), "30 s"),
        (.microseconds(1499), "1 ms"), (.microseconds(1500), "2 ms"), (.milliseconds(-20), "-20 ms"),
        (.milliseconds(61_050), "61.05 s"),
    ])
    func durationsToTheMillisecond(duration: Duration, text: String) {
        #expect(duration.millisecondsDescription == text)
    }

    @Test func messages() {
        #expect("\(Message.sse(type: "message", data: "hello", id: "7"))" == #""hello" (id 7)"#)
        #expect("\(Message.sse(type: "update", data: "x", id: ""))" == #""x" (type update)"#)
        #expect("\(Message(content: .text("hi")))" == #""hi""#)
        #expect("\(Message(content: .binary([1, 2, 3])))" == "binary, 3 bytes")
        let long = String(repeating: "é", count: 100)
        #expect("\(Message(content: .text(long)))" == "\"\(String(repeating: "é", count: 80))…\" (200 bytes)")
    }

    @Test func errorsSayWhatHappensNext() {
        let refused = RealtimeError(.network, detail: "connection refused")
        #expect("\(ErrorEvent(error: refused, willRetry: true, retryIn: .nanoseconds(1_499_999_999), attempt: 3))"
            == "network: connection refused (attempt 3); retrying in 1.5 s")
        #expect("\(ErrorEvent(error: .httpStatus(404), willRetry: false, retryIn: nil, attempt: 1))"
            == "http_status (404) (attempt 1); not retrying")
        #expect("\(ErrorEvent(error: RealtimeError(.unreachable), willRetry: true, retryIn: nil, attempt: 2))"
            == "unreachable (attempt 2); retrying when the network is back")
    }

    @Test func closes() {
        #expect("\(CloseEvent(clean: true, code: 1000, reason: "bye", willReconnect: false))" == #"clean, code 1000 "bye"; not reconnecting"#)
        #expect("\(CloseEvent(clean: false, willReconnect: true))" == "cut; reconnecting")
    }

    @Test func connections() {
        var ws = ConnectionInfo(
            transport: .webSocket, url: URL(string: "ws://127.0.0.1:8080/chat")!, status: 101, subprotocol: "chat.v2",
            extensions: ["permessage-deflate; client_max_window_bits=12"], attempt: 3, attemptInOutage: 2)
        ws.httpVersion = "1.1"
        #expect("\(ws)" == "websocket ws://127.0.0.1:8080/chat (101, HTTP/1.1, attempt 3, 2 attempts this outage, subprotocol chat.v2, permessage-deflate)")
        let sse = ConnectionInfo(transport: .sse, url: URL(string: "https://[::1]/feed")!, status: 200, httpVersion: "2")
        #expect("\(ClientEvent.open(sse))" == "open: sse https://[::1]/feed (200, HTTP/2, attempt 1)")
    }

    @Test func noSecretInAnyDescription() {
        let secret = "SECRET-91f3"
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "session=\(secret)")
        headers.add(name: "Authorization", value: "Bearer \(secret)")
        headers.add(name: "X-Api-Key", value: secret)
        let urls = [
            "https://user:\(secret)@example.com/feed", "https://\(secret)@example.com/feed",
            "wss://example.com/feed?token=\(secret)", "https://example.com/feed#\(secret)",
            "wss://user:\(secret)@example.com:8443/a/b?api_key=\(secret)&x=1",
        ]
        for url in urls {
            let info = ConnectionInfo(transport: .sse, url: URL(string: url)!, status: 200, headers: headers)
            let error = RealtimeError(.httpStatus, status: 401, bodyExcerpt: "token \(secret) rejected")
            let events: [ClientEvent] = [
                .open(info), .error(ErrorEvent(error: error, willRetry: false, retryIn: nil, attempt: 1)),
                .closed(CloseEvent(clean: true, willReconnect: false)),
            ]
            for event in events {
                let printed = "\(event) \(String(reflecting: event))"
                #expect(!printed.contains(secret), "\(url): \(printed)")
            }
            #expect("\(info)".contains("example.com"))
        }
    }
}
