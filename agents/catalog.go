package agents

// AgentInfo describes one agent definition of a workflow without building it:
// what graph-scout reads to build its candidate graph.
type AgentInfo struct {
	ID   string
	Type string
	// Capabilities and Terminal are the definition's capabilities: and
	// is_terminal: hints (OrKa's graph-scout hints).
	Capabilities []string
	Terminal     bool
	// Prompt is the definition's prompt text as written ("" when it has none),
	// Model its model name: inputs of graph-scout's cost estimates.
	Prompt string
	Model  string
}

// Catalog is a [Builder] that can describe every agent a definition can see
// (its workflow's and the enclosing workflows', nearest first, each in file
// order) and run them by id once the load is over. graph-scout reads the
// descriptions; path_executor resolves the ids it is given at run time.
type Catalog interface {
	// Visible describes the agents visible from the workflow being built.
	Visible() []AgentInfo
	// Resolver returns a function that finds a visible agent by id as a step.
	// It must be called only after the load (at run time), when every
	// definition is built; ok is false for an id no visible agent has.
	Resolver() func(id string) (s Step, ok bool)
}

// MayRunner is an agent that may run, at run time, agents of its workflow
// chosen then (path_executor): MayRun lists every id it could run. The
// load-time template name check counts them as possibly run after it; unlike
// a [Referrer]'s, they are not warned about as running twice.
type MayRunner interface {
	MayRun() []string
}
