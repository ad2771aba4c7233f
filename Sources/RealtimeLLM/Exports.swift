// `import RealtimeLLM` brings the client it streams through, as `import Realtime` would.
@_exported import Realtime
