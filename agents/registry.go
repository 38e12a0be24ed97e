package agents

import (
	"fmt"
	"sort"

	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/prompt"
	"go.yaml.in/yaml/v3"
)

// Factory builds an agent of one type from its definition. It reads its keys from c
// (recording problems there) and may use b to build children. It returns an error
// only for a problem it cannot record on c; the builder places that error at the
// definition's position.
type Factory func(b Builder, c *load.Config) (Agent, error)

// Builder is what a workflow builder hands every factory.
type Builder interface {
	// Workflow builds a nested workflow (a loop's internal_workflow) from its node.
	Workflow(node *yaml.Node, what string) (Agent, error)
	// Inline builds an agent defined inline (a failover child).
	Inline(node *yaml.Node) (Agent, error)
	// Ref returns the agent defined with id in the same workflow (fork targets,
	// router routes); a reference to an undefined id is recorded as a problem at pos.
	Ref(id string, pos load.Pos) (Agent, error)
	// Template parses key of c as a template, at load time, with the workflow's
	// template options; syntax errors are recorded with their file position.
	// It returns nil when the key is absent or the template is bad.
	Template(c *load.Config, key string) *prompt.Template
}

// Registry maps agent type names to factories. It is a value: nothing registers
// itself, callers decide what a registry holds.
type Registry struct {
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// Register adds a type. Registering a name twice is an error.
func (r *Registry) Register(typ string, f Factory) error {
	if _, dup := r.factories[typ]; dup {
		return fmt.Errorf("agent type %q is already registered", typ)
	}
	r.factories[typ] = f
	return nil
}

// MustRegister is Register that panics on a duplicate; for wiring built-in types at
// start-up, where a duplicate is a programming error.
func (r *Registry) MustRegister(typ string, f Factory) {
	if err := r.Register(typ, f); err != nil {
		panic(err)
	}
}

// Lookup returns the factory of typ.
func (r *Registry) Lookup(typ string) (Factory, bool) {
	f, ok := r.factories[typ]
	return f, ok
}

// Types lists the registered type names, sorted.
func (r *Registry) Types() []string {
	out := make([]string, 0, len(r.factories))
	for t := range r.factories {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// ModelUser is an agent that calls language models. Models names them as
// their prices are looked up, so that loading a workflow whose budget limits
// cost can check that each has a price. LLM agents and validators are
// ModelUsers.
type ModelUser interface {
	Models() []string
}

// BudgetNoter is a [Builder] that checks prices at the end of a load: every
// budget read with [spend.ReadBudget] is noted by the caller, and a model in use without a price
// is an error when a budget of the file limits cost (a warning when budgets
// limit only tokens). The orchestrator's builder is one.
type BudgetNoter interface {
	NoteBudget(l spend.Limit)
}
