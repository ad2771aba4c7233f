extension RealtimeClient {
    /// Counters of a client's life; see ``ClientStatistics``.
    public typealias Statistics = ClientStatistics
}
