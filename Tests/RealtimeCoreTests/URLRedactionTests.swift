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
