import RealtimeCore

/// What the harness keeps of the outbox, as the client's driver would: the senders and how
/// each send ended, the messages each connection accepted, the drain and the expiry timer.
struct HarnessOutbox {
    /// A send the harness made: its text, and how it ended (nil while pending).
    struct Send {
        var text: String
        var outcome: Outcome?
        /// When the application sent it (harness time).
        var at: Duration = .zero
    }
    enum Outcome: Equatable {
        case sent(attempt: Int)
        case failed(RealtimeError.Code)
    }
    /// Every send, in call order (the index is the sender).
    var sends: [Send] = []
    /// Outbox id → sender index, while queued.
    var queuedSender: [UInt64: Int] = [:]
    /// Live sends handed to a transport and not yet accepted or refused, oldest first.
    var live: [(sender: Int, attempt: Int)] = []
    /// Texts each connection accepted, in order.
    var accepted: [(text: String, attempt: Int)] = []
    var drainRunning = false
    /// The drain's message in flight: outbox id, sender, attempt.
    var inFlight: (id: UInt64, sender: Int, attempt: Int)?
    var expiry: Duration?
    /// Every resolution's id, to catch one resolved twice.
    var resolvedIDs: Set<UInt64> = []
    var problems: [String] = []

    var acceptedTexts: [String] { accepted.map(\.text) }
    func outcome(_ sender: Int) -> Outcome? { sends[sender].outcome }
}
