/// One live operation as the session sees it, whatever its value type: how to subscribe it,
/// where its results go, how it ends.
protocol GraphQLOperationSink: AnyObject, Sendable {
    /// Its `subscribe` message as `id`, with variables computed from `cursor` (the data of
    /// its newest accepted result, nil before any). Throws ``GraphQLClientError`` `encoding_failed`.
    func subscribeMessage(id: String, cursor: (any Sendable)?) throws -> String
    /// Decodes a `next` message for it under `id` and hands the result to the application
    /// (waiting while its buffer is full), unless the session no longer accepts it.
    func deliver(_ text: String, id: String) async
    /// The operation is over: its sequence ends after what is buffered (with `error`, if any).
    func finish(_ error: GraphQLClientError?)
}
