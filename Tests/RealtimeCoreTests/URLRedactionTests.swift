import Foundation
import RealtimeCore
import RealtimeTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct URLRedactionTests {
    @Test("userinfo is hidden in URLs, in text around them, and in text that does not parse", arguments: [
        ("http://user:pw@host/x", "http://***@host/x"),
        ("https://user:pw@host:8443/a?b=c#d", "https://***@host:8443/a?b=c#d"),
        ("https://TOKEN@github.com/o/r.git", "https://***@github.com/o/r.git"),
        ("'http://user:pw@[::1' is not a URL", "'http://***@[::1' is not a URL"),
        ("http://user:pw@[::1]:8080/sse", "http://***@[::1]:8080/sse"),
        ("more than one URL ('ws://a:b@h/x')", "more than one URL ('ws://***@h/x')"),
        ("user:pw@host:8080/path", "***@host:8080/path"),
        ("'user:pw@host'", "'***@host'"),
        ("http://user:p%40ss@host/", "http://***@host/"),
        ("http://us%3Aer:p%2Fw@host", "http://***@host"),
        ("http://user:pa/ss@host/x", "http://***@host/x"),
        ("http://user:pa?ss#x@host", "http://***@host"),
        ("http://user:p@ss@host/", "http://***@host/"),
        ("http://user:p@ss#word@host/", "http://***@host/"),
        ("wss://u:Pw@0#/8a#aZz@10.1.2.3/x", "wss://***@10.1.2.3/x"),
        ("user:p@ss/word@host:80", "***@host:80"),
        ("u:Pw::Z::://x@host", "***@host"),
        ("<Uq:Pw::Z::://////Zz@10.1.2.3/x>", "<***@10.1.2.3/x>"),
        ("url=http://u:p@h/x", "url=http://***@h/x"),
        ("socks5h://u:p@proxy:1080 and http://v:q@other", "socks5h://***@proxy:1080 and http://***@other"),
        ("http://h/r?next=https://u:p@h2/x", "http://h/r?next=https://***@h2/x"),
        ("HTTP://U:P@H", "HTTP://***@H"),
        ("http://user:pw\\@host", "http://***@host"),
    ])
    func hidden(_ input: String, _ expected: String) {
        #expect(URLRedaction.redacted(input) == expected)
    }

    @Test("text without userinfo is unchanged", arguments: [
        "http://host/a@b", "https://medium.com/@user", "http://[::1]:8080/x@y", "http://host:8080/path",
        "admin@example.com wrote", "at 10:30 user@host", "no url here", "", "http://host/?q=a:b@c",
        "http://h\u{E9}llo/\u{1F600}@x", "mailto-less a@b:c",
    ])
    func unchanged(_ input: String) {
        #expect(URLRedaction.redacted(input) == input)
    }

    @Test("credential-like query and fragment values are hidden, other values kept", arguments: [
        ("wss://h/feed?token=abc123", "wss://h/feed?token=***"),
        ("wss://h/feed?room=7&token=abc123&x=1", "wss://h/feed?room=7&token=***&x=1"),
        ("https://h/?access_token=A&api_key=B&key=C&sig=D&signature=E&auth=F&password=G&secret=H&session=I",
         "https://h/?access_token=***&api_key=***&key=***&sig=***&signature=***&auth=***&password=***&secret=***&session=***"),
        ("https://h/?TOKEN=A&Api-Key=B&X-Amz-Signature=C&X-Amz-Credential=D&sessionid=E&pwd=F&jwt=G",
         "https://h/?TOKEN=***&Api-Key=***&X-Amz-Signature=***&X-Amz-Credential=***&sessionid=***&pwd=***&jwt=***"),
        // Repeated names: every occurrence.
        ("ws://h/?token=a&token=b&token=c", "ws://h/?token=***&token=***&token=***"),
        // Empty values, names without a value, values with `=`.
        ("ws://h/?token=&x=1", "ws://h/?token=&x=1"),
        ("ws://h/?token&x=1", "ws://h/?token&x=1"),
        ("ws://h/?token=ab==&x=1", "ws://h/?token=***&x=1"),
        // Percent-encoding: in names, in values, and a URL percent-encoded inside a value.
        ("ws://h/?access%5Ftoken=abc", "ws://h/?access%5Ftoken=***"),
        ("ws://h/?%74oken=abc", "ws://h/?%74oken=***"),
        ("ws://h/?token=a%2Bb%3D%3D", "ws://h/?token=***"),
        ("https://h/login?next=%2Fcb%3Ftoken%3Dabc%26x%3D1", "https://h/login?next=%2Fcb%3Ftoken%3D***%26x%3D1"),
        // Nested URL in a value, fragment (OAuth implicit flow), `;` separators.
        ("https://h/r?next=https://i/?sig=abc&x=1", "https://h/r?next=https://i/?sig=***&x=1"),
        ("https://app/cb#access_token=abc&token_type=bearer&state=s", "https://app/cb#access_token=***&token_type=***&state=s"),
        ("https://h/?a=1#key=abc", "https://h/?a=1#key=***"),
        ("https://h/?a=1;secret=abc;b=2", "https://h/?a=1;secret=***;b=2"),
        // In prose, in JSON, with userinfo, with a path-only target.
        ("failed: wss://h/x?token=abc (timeout).", "failed: wss://h/x?token=*** (timeout)."),
        ("(see wss://h/x?token=abc).", "(see wss://h/x?token=***)."),
        (#"{"url": "wss://h/x?token=abc", "n": 1}"#, #"{"url": "wss://h/x?token=***", "n": 1}"#),
        ("wss://u:p@h/x?token=abc", "wss://***@h/x?token=***"),
        ("GET /ws?api_key=abc HTTP/1.1", "GET /ws?api_key=*** HTTP/1.1"),
        ("http://h/x?a=1 http://h/y?password=p2", "http://h/x?a=1 http://h/y?password=***"),
        ("ws://h/?tok\u{E9}n=1&token=\u{1F600}", "ws://h/?tok\u{E9}n=1&token=***"),
    ])
    func queryValuesHidden(_ input: String, _ expected: String) {
        #expect(URLRedaction.redacted(input) == expected)
    }

    @Test("values of other names are kept", arguments: [
        "wss://h/feed?room=7&mode=send&count=1", "https://h/?q=token&page=2", "https://h/?id=1#section-key",
        "a = b", "x=1 y=2", "https://h/?=abc", "100%", "https://h/?%zz=1&%4=2",
    ])
    func queryValuesKept(_ input: String) {
        #expect(URLRedaction.redacted(input) == input)
    }

    @Test("a random query credential never survives (seeded)")
    func randomQueryCredentialsNeverSurvive() {
        var random = SeededGenerator(seed: 7)
        let names = ["token", "access_token", "api_key", "key", "sig", "signature", "auth", "password", "secret", "session", "X-Amz-Security-Token"]
        let alphabet = Array("abcXYZ019-._~!$'()*+,:@/%\u{E9}\u{1F600}".unicodeScalars)
        let shapes = [
            "wss://h/p?NAME=VALUE", "wss://h/p?a=1&NAME=VALUE&b=2", "https://h/#NAME=VALUE", "x https://h/?NAME=VALUE y",
            "https://h/?next=https://i/?NAME=VALUE", "(https://h/?NAME=VALUE)", "/ws?NAME=VALUE;z=1",
        ]
        for _ in 0..<5_000 {
            var value = "Tk"
            for _ in 0..<Int.random(in: 4...16, using: &random) {
                value.unicodeScalars.append(alphabet.randomElement(using: &random)!)
            }
            value += "Zz"
            let text = shapes.randomElement(using: &random)!
                .replacingOccurrences(of: "NAME", with: names.randomElement(using: &random)!)
                .replacingOccurrences(of: "VALUE", with: value)
            let out = URLRedaction.redacted(text)
            #expect(!out.contains(value), "\(text) -> \(out)")
            #expect(!out.contains("Tk"), "\(text) -> \(out)")
        }
    }

    @Test("the open event's and an error's descriptions hide query credentials; the URL stays exact")
    func descriptionsHideQueryCredentials() throws {
        let url = try #require(URL(string: "wss://h.example/feed?room=7&token=S3cr3t"))
        let info = ConnectionInfo(transport: .webSocket, url: url, status: 101, attempt: 1)
        #expect(!info.description.contains("S3cr3t"))
        #expect(!ClientEvent.open(info).description.contains("S3cr3t"))
        #expect(info.url.absoluteString == "wss://h.example/feed?room=7&token=S3cr3t")
        let error = RealtimeError(.redirect, detail: "redirect to https://h.example/next?access_token=S3cr3t&x=1")
        #expect(!error.description.contains("S3cr3t") && error.description.contains("access_token=***&x=1"))
        #expect(error.detail?.contains("S3cr3t") == false)
        var later = RealtimeError(.network)
        later.detail = "wss://h.example/?api_key=S3cr3t"
        #expect(!later.description.contains("S3cr3t"))
    }

    @Test("a random password in a random URL shape never survives (seeded)")
    func randomPasswordsNeverSurvive() {
        var random = SeededGenerator(seed: 42)
        let alphabet = Array("abcXYZ019-._~!$&'()*+,;=:%/?#[]\\@\u{E9}\u{1F600}".unicodeScalars)
        let shapes = [
            "SCHEME://USER:PASS@HOST/path", "SCHEME://USER:PASS@HOST", "'SCHEME://USER:PASS@[::1'",
            "USER:PASS@HOST:80/x", "error: SCHEME://USER:PASS@HOST:8080/a@b?c#d (curl 7)",
            "(SCHEME://USER:PASS@HOST)", "x SCHEME://USER:PASS@[fe80::1%25eth0]:9/ y",
        ]
        for _ in 0..<5_000 {
            var password = ""
            for _ in 0..<Int.random(in: 4...16, using: &random) {
                password.unicodeScalars.append(alphabet.randomElement(using: &random)!)
            }
            // A password that starts with something the text could read as a port or that is
            // all punctuation tells nothing; make it distinctive.
            password = "Pw" + password + "Zz"
            let shape = shapes.randomElement(using: &random)!
            let scheme = ["http", "https", "ws", "wss", "socks5h"].randomElement(using: &random)!
            let text = shape.replacingOccurrences(of: "SCHEME", with: scheme)
                .replacingOccurrences(of: "USER", with: "u\(Int.random(in: 0...9, using: &random))")
                .replacingOccurrences(of: "PASS", with: password)
                .replacingOccurrences(of: "HOST", with: "h.example")
            let out = URLRedaction.redacted(text)
            #expect(!out.contains(password), "\(text) -> \(out)")
            #expect(out.contains(URLRedaction.mask), "\(text) -> \(out)")
        }
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
