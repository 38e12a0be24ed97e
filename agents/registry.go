package agents

import (
	"fmt"
	"sort"
)

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
