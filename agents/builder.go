package agents

import (
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/scoring"
	"go.yaml.in/yaml/v3"
)

// Factory builds an agent of one type from its definition. It reads its keys from c
// (recording problems there) and may use b to build children. It returns an error
// only for a problem it cannot record on c; the builder places that error at the
// definition's position.
type Factory func(b *Builder, c *load.Config) (Agent, error)

// Builder is the build context every factory receives: the workflow being
// built, seen from the definition being built. All of its methods are always
// there. The workflow builder (the orchestrator's) does the work behind them
// through the [Workspace] it gives [NewBuilder], so composite types (loop,
// fork, failover) build their children without importing it; agenttest.Workspace
// makes one for factory tests.
type Builder struct {
	w Workspace
}

// NewBuilder returns the build context whose work w does.
func NewBuilder(w Workspace) *Builder { return &Builder{w: w} }

// Workspace is what a workflow builder does for the [Builder] it hands a
// factory; every method is required. Factories call the Builder, never this.
type Workspace interface {
	Workflow(node *yaml.Node, what string) (Agent, error)
	WorkflowFile(path string, pos load.Pos, what string) (Agent, error)
	Inline(node *yaml.Node) (Agent, error)
	Ref(id string, pos load.Pos) (Agent, error)
	Template(c *load.Config, key string) *prompt.Template
	TypeOf(id string) (typ string, ok bool)
	Defined() []string
	Visible() []AgentInfo
	Resolver() func(id string) (s Step, ok bool)
	NoteBudget(l spend.Limit)
	Presets() *scoring.Catalog
	// Tool returns the agent id as a tool, or nil after recording why it
	// cannot be one (unknown id, no description) at pos.
	Tool(id string, pos load.Pos) *Tool
}

// Workflow builds a nested workflow (a loop's internal_workflow) from its node.
func (b *Builder) Workflow(node *yaml.Node, what string) (Agent, error) {
	return b.w.Workflow(node, what)
}

// WorkflowFile builds the workflow in the file at path (a loop's
// workflow_ref), relative to the file of pos, which is where the reference
// is written; what names the reference in problems. It returns nil, nil when
// it recorded a problem (a missing file, a reference cycle).
func (b *Builder) WorkflowFile(path string, pos load.Pos, what string) (Agent, error) {
	return b.w.WorkflowFile(path, pos, what)
}

// Inline builds an agent defined inline (a failover child).
func (b *Builder) Inline(node *yaml.Node) (Agent, error) { return b.w.Inline(node) }

// Ref returns the agent defined with id in the same workflow or an enclosing
// one (fork targets, router routes); a reference to an undefined id is
// recorded as a problem at pos.
func (b *Builder) Ref(id string, pos load.Pos) (Agent, error) { return b.w.Ref(id, pos) }

// Template parses key of c as a template, at load time, with the workflow's
// template options; syntax errors are recorded with their file position.
// It returns nil when the key is absent or the template is bad.
func (b *Builder) Template(c *load.Config, key string) *prompt.Template {
	return b.w.Template(c, key)
}

// TypeOf tells the type of the agent defined with id in this workflow or an
// enclosing one, without building it; ok is false when none has that id.
func (b *Builder) TypeOf(id string) (typ string, ok bool) { return b.w.TypeOf(id) }

// Defined lists the ids defined in the agents list of the workflow being
// built, in file order (a join without a group looks for the nearest fork
// defined before it).
func (b *Builder) Defined() []string { return b.w.Defined() }

// Visible describes every agent a definition can see (its workflow's and
// the enclosing workflows', nearest first, each in file order), without
// building them: what graph-scout builds its candidate graph from.
func (b *Builder) Visible() []AgentInfo { return b.w.Visible() }

// Resolver returns a function that finds a visible agent by id as a step
// (path_executor runs the ids it is given). Call the function only after the
// load (at run time), when every definition is built; ok is false for an id
// no visible agent has.
func (b *Builder) Resolver() func(id string) (s Step, ok bool) { return b.w.Resolver() }

// Budget reads key of c as a budget ([spend.ReadBudget]) and notes it for
// the price check at the end of the load: a model in use without a price is
// an error when a budget of the file limits cost, a warning when budgets
// limit only tokens.
func (b *Builder) Budget(c *load.Config, key string) (spend.Limit, bool) {
	l, ok := spend.ReadBudget(c, key)
	if ok {
		b.w.NoteBudget(l)
	}
	return l, ok
}

// Presets returns the scoring catalog of the workflow being built: the one
// of presets_dir on its orchestrator or an enclosing one, or the catalog
// given to the load, else [scoring.Default].
func (b *Builder) Presets() (*scoring.Catalog, error) {
	if c := b.w.Presets(); c != nil {
		return c, nil
	}
	return scoring.Default()
}

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
