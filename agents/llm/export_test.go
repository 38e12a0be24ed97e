package llm

// MaxToolResult is the cap on a tool result, for the external tests.
const MaxToolResult = maxToolResult
