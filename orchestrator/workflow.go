package orchestrator

import (
	"context"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
)

// Workflow is a built workflow: its queue of agents in run order. It is an
// [agents.Agent]; a loop runs one as its internal workflow.
type Workflow struct {
	// ID is the orchestrator id.
	ID string
	// MaxTotalIterations is the orchestrator's max_total_iterations: a ceiling
	// on the iterations of all loops of a run together (0: the loops' default).
	MaxTotalIterations int
	// Strict is the orchestrator's strict: true: load warnings are errors and
	// run-time warnings fail the run ([agents.Run.Strict]).
	Strict bool
	// Notes (top level only) are the load's advice that only validate shows
	// (a loop without an explicit max_loops); under strict mode they are errors.
	Notes []load.Problem
	// Hints (top level only) are advice validate shows that stays advice
	// under strict mode (a score pattern that can match several agents).
	Hints []load.Problem
	// Sources (top level only) are the files the workflow references
	// (workflow_ref), in load order, with their contents: the digest a
	// resume compares covers them.
	Sources []Source
	steps   []step
	seq     agents.Sequence
	defined []string
	// all lists every agent id of the file, nested workflows' too (top level only).
	all []string
	// loops are the shapes of the file's loops (top level only; shape.go).
	loops []LoopShape
	// budget is the orchestrator's budget:, nil when it has none.
	budget *spend.Limit
	// pricing is the file's pricing table.
	pricing spend.Pricing
	// secretUsers (top level only) are the file's agents configured with
	// secrets: a run scrubs their keys from every model reply.
	secretUsers []agents.SecretUser
	// keyUsers (top level only) are the agents whose models read API keys
	// from the environment (preflight.go).
	keyUsers []keyUse
	// MCP (top level only) is the file's mcp_servers and the server tools its
	// agents name (an *mcp.Set when loaded with mcp's reader, see
	// [WithToolServers]); nil without. A run starts them (mcp.Set.Start).
	MCP ToolServers
	// Description and Inputs (top level only) are the orchestrator's
	// description: and inputs: (what `cogloop mcp serve` offers the
	// workflow as).
	Description string
	Inputs      []Input
}

// Defines reports whether id names an agent of this workflow's agents list.
func (w *Workflow) Defines(id string) bool {
	for _, d := range w.defined {
		if d == id {
			return true
		}
	}
	return false
}

// AllIDs lists every agent id the file defines, in file order: this
// workflow's agents and those of every nested workflow (a loop's
// internal_workflow). It is empty for a nested workflow.
func (w *Workflow) AllIDs() []string { return append([]string(nil), w.all...) }

// step is one queue entry while the queue is ordered.
type step struct {
	agents.Step
	deps []string
}

var _ agents.Agent = (*Workflow)(nil)

// Queue lists the agent ids in run order.
func (w *Workflow) Queue() []string {
	out := make([]string, len(w.steps))
	for i, s := range w.steps {
		out[i] = s.ID
	}
	return out
}

// Run runs the queue in order as an [agents.Sequence]. Each agent sees the
// outputs of the agents before it (on top of in.Previous); an agent that fails
// becomes an error record and the next agents still run, as in OrKa. Two kinds of
// agents change what comes next, through optional abilities:
//
//   - an [agents.Exposer] (a fork) has its children's outputs recorded right
//     after its own, so later agents read previous_outputs.<branch agent>;
//   - an [agents.Director] (a router) has the agents it chose run right after it,
//     before the rest of the queue.
//
// Cancellation stops the run between and during steps and is returned as an
// error. The output's Response is the last successful agent's response;
// Children holds every output the run recorded, in run order. The queue itself
// never changes: the inserted agents live in the run's locals.
//
// A workflow with budget: runs its agents in a child scope of in.Budget with
// that limit; without in.Budget, it opens a root scope priced with the file's
// pricing table, so costs are counted either way.
func (w *Workflow) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	switch {
	case in.Budget == nil:
		var l spend.Limit
		if w.budget != nil {
			l = *w.budget
		}
		in.Budget = spend.NewBudget(l, w.pricing)
	case w.budget != nil:
		in.Budget = in.Budget.ChildAt("workflow:"+w.ID+"@"+in.Path, *w.budget)
	}
	for _, su := range w.secretUsers {
		in.Run.AddSecrets(su.Secrets()...)
	}
	return w.seq.Run(ctx, in)
}

// Budget is the orchestrator's budget: limit; ok is false when it has none.
func (w *Workflow) Budget() (l spend.Limit, ok bool) {
	if w.budget == nil {
		return spend.Limit{}, false
	}
	return *w.budget, true
}

// Pricing is the pricing table of the workflow's file: the built-in table (or
// the one given with [WithPricing]) with the orchestrator's pricing: on top.
// Callers must not modify it.
func (w *Workflow) Pricing() spend.Pricing { return w.pricing }
