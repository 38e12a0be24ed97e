package cogloop

// sdkTypes are the agent types builtin.go registers: those a core build
// (-tags cogloop_core) leaves out and refuses by name. A test holds the list
// equal to what builtin.go registers.
var sdkTypes = []string{
	"command", "duckduckgo", "graph-scout", "http", "llm", "local_llm", "loop_validator", "memory",
	"openai-answer", "openai-binary", "openai-classification", "path_executor", "plan_validator",
	"rag", "read_file", "scripted", "validate_and_structure", "write_file",
}
