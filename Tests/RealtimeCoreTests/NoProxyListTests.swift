import RealtimeCore
import Testing

/// `no_proxy` matching, libcurl's rules (curl 7.86+ lib/noproxy.c behaviour).
@Suite(.timeLimit(.minutes(1))) struct NoProxyListTests {
    @Test func starAloneMatchesEverything() {
        let all = NoProxyList(" * ")
        for host in ["example.com", "127.0.0.1", "::1", "[::1]", "x"] { #expect(all.matches(host: host)) }
        #expect(!NoProxyList("").matches(host: "example.com"))
    }

    @Test func namesMatchThemselvesAndTheirSubdomainsOnly() {
        let list = NoProxyList("example.com, .internal.test,LOCALHOST")
        #expect(list.matches(host: "example.com"))
        #expect(list.matches(host: "api.example.com"))
        #expect(list.matches(host: "a.b.EXAMPLE.com"))
        #expect(list.matches(host: "example.com."))
        #expect(!list.matches(host: "badexample.com"))
        #expect(!list.matches(host: "example.com.evil"))
        // A leading dot is ignored: the domain itself matches too.
        #expect(list.matches(host: "internal.test"))
        #expect(list.matches(host: "db.internal.test"))
        #expect(list.matches(host: "localhost"))
        #expect(!list.matches(host: "localhost2"))
    }

    @Test func separatorsAndPortsInEntries() {
        let list = NoProxyList("a.test b.test,\tc.test:8080,,  ")
        #expect(list.matches(host: "a.test"))
        #expect(list.matches(host: "b.test"))
        #expect(list.matches(host: "c.test")) // the entry's port is ignored
        #expect(!list.matches(host: "d.test"))
    }

    /// A separator followed by a combining mark is one Character; the list still splits there.
    @Test func separatorsSplitBytesNotCharacters() {
        let list = NoProxyList("\u{0301}x,example.com,\u{0488}y")
        #expect(list.matches(host: "example.com"))
        #expect(NoProxyList("a.test \u{0301}").matches(host: "a.test"))
    }

    @Test func ipv4AddressesAndRanges() {
        let list = NoProxyList("127.0.0.1,10.0.0.0/8,192.168.1.0/24")
        #expect(list.matches(host: "127.0.0.1"))
        #expect(!list.matches(host: "127.0.0.2"))
        #expect(list.matches(host: "10.200.3.4"))
        #expect(list.matches(host: "192.168.1.77"))
        #expect(!list.matches(host: "192.168.2.1"))
        // An address entry does not match by name suffix.
        #expect(!NoProxyList("0.0.1").matches(host: "10.0.0.1"))
    }

    @Test func ipv6AddressesAndRanges() {
        let list = NoProxyList("::1,[fd00::]/8,2001:db8::1")
        #expect(list.matches(host: "::1"))
        #expect(list.matches(host: "[::1]"))
        #expect(list.matches(host: "0:0:0:0:0:0:0:1"))
        #expect(list.matches(host: "fd12:3456::9"))
        #expect(list.matches(host: "2001:0db8:0:0::1"))
        #expect(!list.matches(host: "2001:db8::2"))
        #expect(!list.matches(host: "fe80::1"))
        #expect(!list.matches(host: "127.0.0.1"))
        #expect(NoProxyList("::ffff:10.0.0.0/104").matches(host: "::ffff:10.1.2.3"))
    }
}
