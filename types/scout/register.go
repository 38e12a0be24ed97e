package scout

import (
	"net/http"

	"github.com/cogloop/cogloop/agents"
)

// Type names under which [Register] adds the agents.
const (
	TypeGraphScout   = "graph-scout"
	TypePathExecutor = "path_executor"
)

// Options are the dependencies of graph-scout's model (its
// llm_evaluation_enabled evaluator), the same an LLM agent's are.
type Options struct {
	// Getenv reads API keys and OPENAI_BASE_URL; nil means os.Getenv.
	Getenv func(string) string
	// HTTPClient makes the model calls; nil means llm.DefaultHTTPClient().
	HTTPClient *http.Client
}

// Register adds graph-scout and path_executor to r.
func Register(r *agents.Registry) { RegisterWith(r, Options{}) }

// RegisterWith is [Register] with explicit dependencies.
func RegisterWith(r *agents.Registry, o Options) {
	r.MustRegister(TypeGraphScout, o.newGraphScout)
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
