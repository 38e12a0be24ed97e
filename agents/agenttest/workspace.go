package agenttest

import (
	"fmt"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/scoring"
	"go.yaml.in/yaml/v3"
)

// Workspace is the [agents.Workspace] of factory tests: a factory called
// outside any workflow, through [Workspace.Builder]. Its fields say what the
// builder answers; the zero value is a workflow that defines nothing.
// Templates are parsed with prompt's default options, a bad one recorded on
// the config; nested workflows, workflow files and inline agents are errors.
type Workspace struct {
	// Types gives the type of each agent the workflow defines (TypeOf);
	// IDs lists the workflow's agents in file order (Defined, and Visible
	// with their Types).
	Types map[string]string
	IDs   []string
	// Agents answers Ref and the Resolver by id.
	Agents map[string]agents.Agent
	// Catalog is the workflow's scoring catalog; nil means scoring.Default.
	Catalog *scoring.Catalog
	// Budgets are the budgets the factory read, in order.
	Budgets []spend.Limit
	// Tools answers Tool by id; an id it does not hold is recorded as a problem.
	Tools map[string]*agents.Tool
	// Problems receives what Tool records; nil discards it.
	Problems *load.Problems
}

var _ agents.Workspace = (*Workspace)(nil)

// Builder returns the build context a factory under test receives.
func (w *Workspace) Builder() *agents.Builder { return agents.NewBuilder(w) }

// Workflow fails: factory tests build no nested workflows.
func (w *Workspace) Workflow(*yaml.Node, string) (agents.Agent, error) {
	return nil, fmt.Errorf("agenttest.Workspace builds no nested workflows")
}

// WorkflowFile fails: factory tests read no workflow files.
func (w *Workspace) WorkflowFile(path string, _ load.Pos, _ string) (agents.Agent, error) {
	return nil, fmt.Errorf("agenttest.Workspace reads no workflow files (%s)", path)
}

// Inline fails: factory tests build no inline agents.
func (w *Workspace) Inline(*yaml.Node) (agents.Agent, error) {
	return nil, fmt.Errorf("agenttest.Workspace builds no inline agents")
}

// Ref returns Agents[id], or an error for an id it does not hold.
func (w *Workspace) Ref(id string, _ load.Pos) (agents.Agent, error) {
	if a, ok := w.Agents[id]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("agenttest.Workspace has no agent %q", id)
}

// Template parses key of c with prompt's default options; a syntax error is
// recorded on c at the key.
func (w *Workspace) Template(c *load.Config, key string) *prompt.Template {
	n := c.Node(key)
	if n == nil {
		return nil
	}
	t, err := prompt.Parse(key, n.Value, prompt.Options{})
	if err != nil {
		c.Errorf(key, "%v", err)
		return nil
	}
	return t
}

// TypeOf answers from Types.
func (w *Workspace) TypeOf(id string) (string, bool) {
	t, ok := w.Types[id]
	return t, ok
}

// Defined returns IDs.
func (w *Workspace) Defined() []string { return append([]string(nil), w.IDs...) }

// Visible describes the agents of IDs, with their Types.
func (w *Workspace) Visible() []agents.AgentInfo {
	out := make([]agents.AgentInfo, 0, len(w.IDs))
	for _, id := range w.IDs {
		out = append(out, agents.AgentInfo{ID: id, Type: w.Types[id]})
	}
	return out
}

// Resolver finds Agents by id.
func (w *Workspace) Resolver() func(id string) (agents.Step, bool) {
	return func(id string) (agents.Step, bool) {
		a, ok := w.Agents[id]
		return agents.NewStep(id, w.Types[id], a), ok
	}
}

// NoteBudget appends l to Budgets.
func (w *Workspace) NoteBudget(l spend.Limit) { w.Budgets = append(w.Budgets, l) }

// Presets returns Catalog.
func (w *Workspace) Presets() *scoring.Catalog { return w.Catalog }

// Tool returns Tools[id]; an id it does not hold is recorded on Problems.
func (w *Workspace) Tool(id string, pos load.Pos) *agents.Tool {
	if t, ok := w.Tools[id]; ok {
		return t
	}
	if w.Problems != nil {
		w.Problems.Errorf(pos, "tools names %q, which no agent defines", id)
	}
	return nil
}
