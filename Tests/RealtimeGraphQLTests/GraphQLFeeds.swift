import RealtimeGraphQL

/// The data of the peers' subscriptions (`Tests/Peers/graphql_strawberry.py`,
/// `graphql_hostile.py`).
struct Ticks: Decodable, Sendable, Equatable {
    struct Tick: Decodable, Sendable, Equatable { var seq: Int }
    var ticks: Tick
}

struct Letters: Decodable, Sendable, Equatable {
    struct Letter: Decodable, Sendable, Equatable {
        var seq: Int
        var letter: String
    }
    var letters: Letter
}

struct Readings: Decodable, Sendable, Equatable {
    struct Reading: Decodable, Sendable, Equatable {
        var seq: Int
        var note: String?
    }
    var readings: Reading
}

/// What one numbered feed delivered: how many of 1...count came, how many twice, how many
/// never, and whether they came in order.
struct FeedCount: Sendable, CustomStringConvertible {
    var received: [Int]
    var count: Int

    var lost: Int { Set(1...count).subtracting(received).count }
    var duplicated: Int { received.count - Set(received).count }
    var inOrder: Bool { received == received.sorted() }
    var exact: Bool { received == Array(1...count) }

    var description: String {
        "\(received.count) received of \(count): \(lost) lost, \(duplicated) duplicated, in order: \(inOrder)"
    }
}
