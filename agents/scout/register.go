package scout

import "github.com/cogloop/cogloop/agents"

// Type names under which [Register] adds the agents.
const (
	TypeGraphScout   = "graph-scout"
	TypePathExecutor = "path_executor"
)

// Register adds graph-scout and path_executor to r.
func Register(r *agents.Registry) {
	r.MustRegister(TypeGraphScout, NewGraphScout)
	r.MustRegister(TypePathExecutor, NewPathExecutor)
}

// control are the agent types that steer a workflow rather than do its work:
// graph-scout never proposes them and path_executor never runs them (OrKa
// filters the same node classes).
var control = map[string]bool{
	TypeGraphScout: true, TypePathExecutor: true,
	"loop": true, "fork": true, "join": true, "router": true, "failover": true,
	"plan_validator": true, "loop_validator": true, "validate_and_structure": true,
	"classification": true, "openai-classification": true, "binary": true, "openai-binary": true,
}
