import RealtimeIO
import Testing

/// The turn-taking of an origin's HTTP/2 streams, event by event: one opens the first
/// connection, then waves that double while the server's limit is unknown, then as many as
/// the connections have room for, and one at a time to open the next connection; a transfer
/// held past its longest wait does not open a connection beside the one being opened for it.
@Suite(.timeLimit(.minutes(1)))
struct HTTP2AdmissionTests {
    static let origin = "https://example.com:443"

    static func connection(_ port: Int) -> HTTP2ConnectionID {
        HTTP2ConnectionID(localPort: port, remotePort: 443, remoteAddress: "192.0.2.1")
    }

    @Test func theFirstStreamOpensTheConnectionAlone() {
        var admission = HTTP2Admission<Int>()
        #expect(admission.submit(1, origin: Self.origin) == [1])
        #expect(admission.submit(2, origin: Self.origin) == [])
        #expect(admission.submit(3, origin: Self.origin) == [])
        // Another origin is not held back.
        #expect(admission.submit(9, origin: "https://other.example:443") == [9])
        // The first head lets one more start (as many as are open, less those starting).
        #expect(admission.answered(1, connection: Self.connection(1), openedConnection: true) == [2])
        #expect(admission.answered(2, connection: Self.connection(1), openedConnection: false) == [3])
    }

    @Test func wavesDoubleWhileTheLimitIsUnknown() {
        var admission = HTTP2Admission<Int>()
        for n in 1...100 { _ = admission.submit(n, origin: Self.origin) }
        var open = 0
        var starting = [1]
        var waves: [Int] = []
        while !starting.isEmpty {
            waves.append(starting.count)
            var next: [Int] = []
            for handle in starting {
                next += admission.answered(handle, connection: Self.connection(1), openedConnection: open == 0)
                open += 1
            }
            starting = next
        }
        #expect(open == 100)
        #expect(waves.prefix(5) == [1, 1, 2, 4, 8], "\(waves)")
        #expect(admission.limit(of: Self.origin) == nil)
    }

    /// A wave starts only when the one before has all its heads: a burst of heads from the
    /// first connection cannot send more streams past its limit than one wave.
    @Test func aWaveWaitsForTheWaveBefore() {
        var admission = HTTP2Admission<Int>()
        for n in 1...10 { _ = admission.submit(n, origin: Self.origin) }
        #expect(admission.answered(1, connection: Self.connection(1), openedConnection: true) == [2])
        #expect(admission.answered(2, connection: Self.connection(1), openedConnection: false) == [3, 4])
        #expect(admission.answered(3, connection: Self.connection(1), openedConnection: false) == [])
        #expect(admission.answered(4, connection: Self.connection(1), openedConnection: false) == [5, 6, 7, 8])
    }

    /// Streams 1...10 open on connection 1 (the limit not learned yet).
    static func oneFullConnectionOfTen() -> HTTP2Admission<Int> {
        var admission = HTTP2Admission<Int>()
        _ = admission.submit(1, origin: Self.origin)
        _ = admission.answered(1, connection: Self.connection(1), openedConnection: true)
        for n in 2...10 {
            _ = admission.submit(n, origin: Self.origin)
            _ = admission.answered(n, connection: Self.connection(1), openedConnection: false)
        }
        return admission
    }

    /// A stream that had to open a second connection beside a connection carrying 10
    /// teaches the limit; from then on the streams fill the room there is, and one at a time
    /// opens the next connection.
    @Test func theLimitIsLearnedThenRespected() {
        var admission = Self.oneFullConnectionOfTen()
        #expect(admission.submit(11, origin: Self.origin) == [11])
        _ = admission.answered(11, connection: Self.connection(2), openedConnection: true)
        #expect(admission.limit(of: Self.origin) == 10)
        // Two connections of 10: 9 spare on the second.
        var started: [Int] = []
        for n in 12...30 { started += admission.submit(n, origin: Self.origin) }
        #expect(started == Array(12...20))
        // Both full: the next one alone opens a third connection.
        var next: [Int] = []
        for n in 12...20 { next += admission.answered(n, connection: Self.connection(2), openedConnection: false) }
        #expect(next == [21])
        #expect(admission.ended(99) == [])
        #expect(admission.submit(31, origin: Self.origin) == [])
        // A place freed on the first connection waits while the third one opens...
        #expect(admission.ended(5) == [])
        // ...which brings room for 10 more: the freed place and 9 on the new connection.
        #expect(admission.answered(21, connection: Self.connection(3), openedConnection: true) == Array(22...31))
        #expect(admission.limit(of: Self.origin) == 10)
    }

    @Test func aStreamThatLeavesBeforeItsTurnIsSkipped() {
        var admission = HTTP2Admission<Int>()
        _ = admission.submit(1, origin: Self.origin)
        _ = admission.submit(2, origin: Self.origin)
        _ = admission.submit(3, origin: Self.origin)
        #expect(admission.ended(2) == [])
        #expect(admission.answered(1, connection: Self.connection(1), openedConnection: true) == [3])
        // The first stream's end leaves the origin with no open stream: the next opens alone.
        #expect(admission.ended(1) == [])
        #expect(admission.ended(3) == [])
        #expect(admission.submit(4, origin: Self.origin) == [4])
        #expect(admission.submit(5, origin: Self.origin) == [])
    }

    /// An origin whose first connection did not negotiate h2 holds nothing back: every
    /// transfer there needs a connection of its own.
    @Test func anOriginWithoutHTTP2IsNotHeld() {
        var admission = HTTP2Admission<Int>()
        #expect(admission.submit(1, origin: Self.origin) == [1])
        #expect(admission.submit(2, origin: Self.origin) == [])
        #expect(admission.submit(3, origin: Self.origin) == [])
        #expect(admission.negotiated(1, multiplexed: false) == [2, 3])
        #expect(admission.submit(4, origin: Self.origin) == [4])
    }

    /// A transfer released after waiting its longest starts then, once; its place in the
    /// queue is skipped.
    @Test func aReleasedTransferStartsOnce() {
        var admission = HTTP2Admission<Int>()
        _ = admission.submit(1, origin: Self.origin)
        _ = admission.submit(2, origin: Self.origin)
        _ = admission.submit(3, origin: Self.origin)
        #expect(admission.release(3) == [3])
        #expect(admission.release(3) == [])
        // The wave (1, and 3 released) ends with both heads; 3's place in the queue is skipped.
        #expect(admission.answered(1, connection: Self.connection(1), openedConnection: true) == [])
        #expect(admission.answered(3, connection: Self.connection(1), openedConnection: false) == [2])
        #expect(admission.answered(2, connection: Self.connection(1), openedConnection: false) == [])
        #expect(admission.submit(4, origin: Self.origin) == [4])
    }

    /// Two connections of 10, both full, and stream 21 opening the third; 22...35 wait.
    static func twoFullConnectionsAndAnOpener() -> HTTP2Admission<Int> {
        var admission = Self.oneFullConnectionOfTen()
        _ = admission.submit(11, origin: Self.origin)
        _ = admission.answered(11, connection: Self.connection(2), openedConnection: true)
        for n in 12...20 {
            _ = admission.submit(n, origin: Self.origin)
            _ = admission.answered(n, connection: Self.connection(2), openedConnection: false)
        }
        #expect(admission.submit(21, origin: Self.origin) == [21], "the opener")
        for n in 22...35 { #expect(admission.submit(n, origin: Self.origin) == []) }
        return admission
    }

    /// A transfer whose longest wait ends while the next connection is being opened for it
    /// keeps its place instead of opening another connection beside it; one that waits for
    /// heads on connections with room is released as before.
    @Test func aReleaseWaitsForTheConnectionBeingOpened() {
        var admission = Self.twoFullConnectionsAndAnOpener()
        #expect(admission.release(22) == [])
        #expect(admission.release(35) == [])
        #expect(admission.answered(21, connection: Self.connection(3), openedConnection: true) == Array(22...30))
        #expect(admission.release(31) == [31], "waiting for heads, not for a connection: released as before")
        // The opener failed before it connected: the next one opens the connection instead.
        var other = Self.twoFullConnectionsAndAnOpener()
        #expect(other.ended(21) == [22])
        #expect(other.release(23) == [])
    }
}
