// The umbrella: `import Realtime` brings every public type of the SDK.
@_exported import RealtimeCore
@_exported import RealtimeIO
@_exported import RealtimeSSE
@_exported import RealtimeWebSocket
@_exported import RealtimeLLM
