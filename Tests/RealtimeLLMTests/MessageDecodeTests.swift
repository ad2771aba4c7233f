import Foundation
import RealtimeCore
import RealtimeLLM
import Testing

@Suite(.timeLimit(.minutes(1))) struct MessageDecodeTests {
    struct Chunk: Decodable, Equatable {
        var text: String
        var n: Int
    }

    @Test func textAndBinaryPayloadsDecode() throws {
        let json = #"{"text":"héllo 🌍","n":3}"#
        #expect(try Message.sse(type: "message", data: json, id: "").decode(Chunk.self) == Chunk(text: "héllo 🌍", n: 3))
        #expect(try Message(content: .binary(Array(json.utf8))).decode(Chunk.self) == Chunk(text: "héllo 🌍", n: 3))
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        struct Snake: Decodable { var someValue: Int }
        #expect(try Message.sse(type: "message", data: #"{"some_value":7}"#, id: "").decode(Snake.self, using: snake).someValue == 7)
    }

    @Test func aMismatchThrowsTheDecodingError() {
        #expect(throws: DecodingError.self) {
            try Message.sse(type: "message", data: #"{"text":1,"n":2}"#, id: "").decode(Chunk.self)
        }
        #expect(throws: DecodingError.self) {
            try Message.sse(type: "message", data: "[DONE]", id: "").decode(Chunk.self)
        }
    }
}
