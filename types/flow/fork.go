package flow

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/internal/workers"
	"go.yaml.in/yaml/v3"
)

// Fork modes.
const (
	ModeParallel   = "parallel"
	ModeSequential = "sequential"
)

// Fork runs branches of agents (type fork). It is immutable and safe for
// concurrent Run calls.
//
// YAML keys: targets (required: a list of branches; a branch is a list of agent
// ids run in order, a bare id a one-agent branch), mode (parallel, the default,
// or sequential), max_concurrency (parallel branches running at once; 0, the
// default, means all), fail_fast (the first failing branch agent cancels the
// other branches and fails the fork; default false).
type Fork struct {
	id       string
	branches []agents.Sequence
	ids      [][]string // branch agent ids, per branch
	idValues [][]any    // the same as values, for event data (shared, read-only)
	flat     []string   // every branch agent id, declaration order
	flatVals []any      // flat as values, copied into each output
	idVal    any        // id and mode boxed once, for the output's fields
	modeVal  any
	mode     string
	limit    int
	failFast bool
}

var (
	_ agents.Agent    = (*Fork)(nil)
	_ agents.Exposer  = (*Fork)(nil)
	_ agents.Referrer = (*Fork)(nil)
)

// NewFork builds a fork from its definition (the registry's factory for type fork).
func NewFork(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	f := &Fork{id: c.String("id", "")}
	f.mode = c.String("mode", ModeParallel)
	switch f.mode {
	case ModeParallel, ModeSequential:
	default:
		c.Errorf("mode", "mode must be %s or %s, not %q", ModeParallel, ModeSequential, f.mode)
		f.mode = ModeParallel
	}
	f.idVal, f.modeVal = f.id, f.mode
	f.limit = c.Int("max_concurrency", 0, 0, 1<<20)
	if f.limit > 0 && f.mode == ModeSequential {
		c.Warnf("max_concurrency", "max_concurrency applies to mode %s only; sequential branches run one at a time", ModeParallel)
	}
	f.failFast = c.Bool("fail_fast", false)
	c.Ignore(orkaIgnored...)

	targets := c.Node("targets")
	switch {
	case targets == nil || (targets.Kind == yaml.ScalarNode && targets.Tag == "!!null"):
		c.Errorf("", "missing targets: the branches to run, e.g. targets: [[a1, a2], [b1], c1]")
		return f, nil
	case targets.Kind != yaml.SequenceNode:
		c.Errorf("targets", "targets must be a list of branches (lists of agent ids), not %s", load.KindName(targets))
		return f, nil
	case len(targets.Content) == 0:
		c.Errorf("targets", "targets is empty: list at least one branch, e.g. targets: [[a1, a2], [b1]]")
		return f, nil
	}
	seen := map[string]int{}
	cfg := ForkConfig{ID: f.id, Mode: f.mode, MaxConcurrency: f.limit, FailFast: f.failFast}
	for i, item := range targets.Content {
		item = load.Resolve(item)
		ids, pos := idList(c, "targets", item)
		if item.Kind == yaml.SequenceNode && len(item.Content) == 0 {
			c.Problems().Errorf(c.PosOf(item), "%s: branch %d of targets is empty: list the agents it runs", c.What(), i+1)
			continue
		}
		var steps []agents.Step
		for k, id := range ids {
			if prev, dup := seen[id]; dup {
				c.Problems().Errorf(pos[k], "%s: targets names %q twice (also in branch %d); an agent runs in one branch", c.What(), id, prev)
				continue
			}
			seen[id] = i + 1
			st, ok := ref(b, c, "targets", id, pos[k])
			if !ok {
				continue
			}
			steps = append(steps, st)
		}
		if len(steps) == 0 {
			continue
		}
		cfg.Branches = append(cfg.Branches, steps)
	}
	return newFork(cfg), nil
}

// ExposesChildren is always true: later agents see the branch agents' outputs.
func (f *Fork) ExposesChildren() bool { return true }

// Refs lists the branch agents in declaration order.
func (f *Fork) Refs() []string { return append([]string(nil), f.flat...) }

// Run runs every branch and returns when all of them have ended. The output's
// Children are the branch agents' outputs in declaration order (branch by
// branch, agent by agent); its Response is the list of branch agent ids and its
// fields are OrKa's {status: forked, fork_group, agents, mode}, so the fork's
// own record holds no branch text (the branch agents' records and the join do);
// Usage sums the branches'. Each branch agent sees in.Previous plus the outputs
// of the agents before it in its branch (in sequential mode also those of the
// earlier branches).
//
// Run fails when in's context is cancelled (the run must stop), when a branch
// agent failed with a fatal error ([fault.IsFatal]: the other branches are
// cancelled at once and the fatal error is returned, whatever fail_fast says),
// when fail_fast is set and a branch agent failed (the error names it; the
// output still holds what the branches recorded), or when a branch panicked
// outside its agents.
func (f *Fork) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	res := make([]agents.Output, len(f.branches))
	var err error
	if f.mode == ModeParallel && len(f.branches) > 1 {
		err = f.runParallel(ctx, in, res)
	} else {
		err = f.runSequential(ctx, in, res)
	}
	return f.output(res), err
}

func (f *Fork) runSequential(ctx context.Context, in agents.Input, res []agents.Output) error {
	var errs []error
	bin := in
	for i := range f.branches {
		if err := ctx.Err(); err != nil {
			return fault.AtPath(in.Path, err)
		}
		var err error
		res[i], err = f.safeBranch(ctx, i, bin)
		bin.Previous = bin.Previous.WithAll(res[i].Children)
		if err != nil {
			if ctx.Err() != nil {
				return fault.AtPath(in.Path, ctx.Err())
			}
			if fault.AsInterrupt(err) != nil {
				return f.saveFinished(ctx, in, res[:i], err)
			}
			if f.failFast || fault.IsFatal(err) {
				return err
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runParallel runs the branches concurrently: every branch but the first on a
// goroutine (of the loop's worker pool when the fork runs inside a loop, see
// package workers), the first on the calling goroutine when no bound applies,
// which saves a goroutine and its stack growth. Under max_concurrency k
// goroutines take the branches in order, one at a time each. A fatal failure,
// and with fail_fast any failure, cancels the others' context.
func (f *Fork) runParallel(ctx context.Context, in agents.Input, res []agents.Output) error {
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	n := len(f.branches)
	pool := workers.From(ctx)
	var wg sync.WaitGroup
	spawn := func(fn func()) {
		wg.Add(1)
		pool.Go(func() {
			defer wg.Done()
			fn()
		})
	}
	errs := make([]error, n)
	var once sync.Once
	var first error
	branch := func(i int) {
		res[i], errs[i] = f.safeBranch(gctx, i, in)
		// An interrupt lets the other branches finish: their outputs are
		// saved, so continuing the run repeats none of them.
		if errs[i] != nil && fault.AsInterrupt(errs[i]) == nil && (f.failFast || fault.IsFatal(errs[i])) {
			once.Do(func() {
				first = errs[i]
				cancel(errs[i])
			})
		}
	}
	if f.limit <= 0 || f.limit >= n {
		for i := 1; i < n; i++ {
			spawn(func() { branch(i) })
		}
		branch(0)
	} else {
		var next atomic.Int64
		for range f.limit {
			spawn(func() {
				for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
					branch(i)
				}
			})
		}
	}
	wg.Wait() // the branches report through errs
	return f.outcome(ctx, in, res, errs, first)
}

// outcome is what a fork whose branches are done returns, given each
// branch's error: the context's error, a fatal error, the first failure
// that cancelled the others, an interrupt (once the finished branches are
// saved), or every branch's error joined (nil: all succeeded).
func (f *Fork) outcome(ctx context.Context, in agents.Input, res []agents.Output, errs []error, first error) error {
	if err := ctx.Err(); err != nil {
		return fault.AtPath(in.Path, err)
	}
	for _, err := range errs {
		if fault.IsFatal(err) {
			return err
		}
	}
	if first != nil {
		return first
	}
	for i, err := range errs {
		if fault.AsInterrupt(err) != nil {
			var done []agents.Output
			for j := range res {
				if errs[j] == nil {
					done = append(done, res[j])
				}
			}
			return f.saveFinished(ctx, in, done, errs[i])
		}
	}
	return errors.Join(errs...)
}

// saveFinished saves the outputs of the branches that finished before the
// run was interrupted by stop (the interrupted branch saved its own), and
// returns stop.
func (f *Fork) saveFinished(ctx context.Context, in agents.Input, done []agents.Output, stop error) error {
	if in.Run == nil || in.Run.Checkpoint == nil {
		return stop
	}
	for _, o := range done {
		if err := in.Run.Checkpoint.SaveSteps(context.WithoutCancel(ctx), in.Path, o.Children); err != nil {
			return fault.AtPath(in.Path, err)
		}
	}
	return stop
}

// safeBranch runs branch i, turning a panic outside the branch's agents (which
// [agents.Sequence] already guards) into an error with its stack.
func (f *Fork) safeBranch(ctx context.Context, i int, in agents.Input) (out agents.Output, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fault.AtPath(f.branchNode(in.Path, i), fault.FromPanic(r))
		}
	}()
	return f.runBranch(ctx, i, in)
}

// runBranch runs branch i between its start and end events. A branch whose
// context is done before it starts runs nothing and reports nothing.
func (f *Fork) runBranch(ctx context.Context, i int, in agents.Input) (agents.Output, error) {
	if err := ctx.Err(); err != nil {
		return agents.Output{}, fault.AtPath(in.Path, err)
	}
	wantStart, wantEnd := in.Run.Wanted(event.BranchStart), in.Run.Wanted(event.BranchEnd)
	if !wantStart && !wantEnd {
		return f.branches[i].Run(ctx, in)
	}
	node := f.branchNode(in.Path, i)
	start := time.Now()
	if wantStart {
		in.Run.Emit(event.Event{Kind: event.BranchStart, Time: start, Node: node, Agent: f.id, Type: TypeFork, Data: f.branchData(i)})
	}
	out, err := f.branches[i].Run(ctx, in)
	if !wantEnd {
		return out, err
	}
	now := time.Now()
	end := event.Event{Kind: event.BranchEnd, Time: now, Node: node, Agent: f.id, Type: TypeFork,
		Duration: now.Sub(start), Data: f.branchData(i)}
	failed := 0
	out.Children.Each(func(_ string, o agents.Output) bool {
		if o.Failed() {
			if failed == 0 {
				end.Error = o.Err
			}
			failed++
		}
		return true
	})
	end.Data["failed"] = failed
	if err != nil {
		end.Error = err.Error()
	}
	if out.Usage != (spend.Usage{}) {
		u := out.Usage
		end.Usage = &u
	}
	in.Run.Emit(end)
	return out, err
}

func (f *Fork) branchNode(path string, i int) string {
	return fault.JoinPath(path, "branch "+strconv.Itoa(i+1))
}

// branchData is a branch event's data: a fresh map; its agents list is shared
// between events, so observers must not modify it.
func (f *Fork) branchData(i int) map[string]any {
	return map[string]any{"fork": f.id, "branch": i + 1, "agents": f.idValues[i]}
}

// forkOrder is the key order templates see a fork in: OrKa's fork result
// (nodes/fork_node.py).
var forkOrder = &pyvalue.Order{Keys: []string{"status", "fork_group", "agents", "mode"}}

// statusForked is the fork's status field, boxed once.
var statusForked any = "forked"

// output assembles the fork's output from the branch results, in declaration order.
func (f *Fork) output(res []agents.Output) agents.Output {
	kids := make([]*agents.Outputs, len(res))
	var usage spend.Usage
	for i, r := range res {
		kids[i] = r.Children
		usage = usage.Add(r.Usage)
	}
	children := (*agents.Outputs)(nil).WithAll(kids...)
	fields := map[string]any{"status": statusForked, "fork_group": f.idVal, "agents": slices.Clone(f.flatVals), "mode": f.modeVal}
	return agents.Output{
		Response: slices.Clone(f.flatVals),
		Fields:   fields,
		Shape:    fields, // OrKa's fork result: no response
		Order:    forkOrder,
		Usage:    usage,
		Children: children,
	}
}
