// Package cogloop runs agent workflows whose centre is a loop node. A workflow is a
// YAML file in OrKa's schema (or bytes in memory): [Load] or [Parse] builds it once,
// and [Workflow.Run] runs it as often as you like, concurrently if you like.
//
// The packages below do the work: orchestrator (loading, building, sequential
// runs), agents (the Agent contract, registry, step runner, checkpoints) with
// its concerns in agents/load (the config reader and load problems),
// agents/fault (error paths, fatal errors), agents/spend (usage, pricing,
// budgets), agents/event (the event stream), agents/secrets, agents/retry and
// agents/scripted (the offline model), loopnode (the loop node), flow (fork,
// join, router, failover), the agent types under agents/ (llm, validate,
// memories, checks, legacy, scout, search, brain), prompt (templates),
// cognition with cognition/scorer and cognition/metrics (the bounded regex
// engine, lessons, scores and metrics from model text), scoring
// (boolean-criteria presets), memory (histories, checkpoints, memories; a
// Redis store in memory/redis), telemetry (OpenTelemetry), records and report
// (run records, the HTML report) and queue (runs on a Redis queue). This
// package wires the built-in agent types into one registry and gives them a
// small API: [Load]/[Parse], [Workflow.Run] with [RunOption]s and [Result]
// (queue.Enqueue queues a run for a worker).
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/lease, agents/load,
// agents/spend, loopnode, mcp, memory, orchestrator, scoring, telemetry,
// types/act, types/brain, types/checks, types/flow, types/human, types/legacy,
// types/llm, types/memories, types/scout, types/search and types/validate.
package cogloop

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/lease"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/orchestrator"
	"github.com/cogloop/cogloop/scoring"
	"github.com/cogloop/cogloop/types/brain"
	"github.com/cogloop/cogloop/types/checks"
	"github.com/cogloop/cogloop/types/flow"
	"github.com/cogloop/cogloop/types/human"
	"github.com/cogloop/cogloop/types/legacy"
)

// NewRegistry returns a registry with every built-in agent type.
func NewRegistry() *agents.Registry { return newRegistry(legacy.Options{}) }

// newRegistry is NewRegistry with the legacy types' dependencies (tests give
// the failing type a fake sleep).
func newRegistry(lo legacy.Options) *agents.Registry {
	return newRegistryWith(lo, injected{})
}

// newRegistryWith is newRegistry with what the load options inject: the
// HTTP client and environment of the agents that call models or the web,
// and the Go providers.
func newRegistryWith(lo legacy.Options, in injected) *agents.Registry {
	r := agents.NewRegistry()
	loopnode.Register(r)
	flow.Register(r)
	legacy.RegisterWith(r, lo)
	checks.Register(r)
	brain.Register(r)
	human.Register(r)
	registerSDKTypes(r, in) // the types that call models, tools and the web (builtin.go)
	return r
}

// Workflow is a loaded workflow, ready to run. It is safe for concurrent use.
type Workflow struct {
	wf *orchestrator.Workflow
	// Warnings are the load problems that did not stop the workflow from building
	// (OrKa keys cogloop ignores, labels that do nothing, ...).
	Warnings []load.Problem
	// Notes are advice `cogloop validate` shows (a loop without an explicit
	// max_loops); under strict mode they are load errors.
	Notes []load.Problem
	// Hints are advice `cogloop validate` shows that stays advice under
	// strict mode: a guess, not a fault (a loop whose score pattern can
	// match more than one agent's output and that has no score_from).
	Hints []load.Problem
	// Digest is the SHA-256 of the workflow source, hex; with workflow_ref
	// files it covers each referenced file too, so a resume notices a change
	// in any of them.
	Digest string
	// file is the workflow file Load read, absolute; "" after Parse.
	file string

	mem workflowMemory // the default store of runs given no WithMemory
	// src and name are the YAML the workflow was parsed from (queue
	// submits them); nil for a workflow not built from YAML.
	src  []byte
	name string
}

// LoadOption adjusts loading.
type LoadOption func(*loadOptions)

type loadOptions struct {
	reg        *agents.Registry
	presetsDir string
	pricing    spend.Pricing
	strict     bool
	inject     injected
}

// WithStrict loads in strict mode, as strict: true on the orchestrator does
// (the CLI's --strict): every load warning is an error, and run-time warnings
// (an undefined template name, a pass without a score, ...) fail the run.
func WithStrict() LoadOption {
	return func(o *loadOptions) { o.strict = true }
}

// WithPricing prices model calls with p instead of the built-in table
// ([spend.DefaultPricing]); a pricing: on the orchestrator adds to it.
func WithPricing(p spend.Pricing) LoadOption {
	return func(o *loadOptions) { o.pricing = p }
}

// WithPresetsDir adds the scoring presets in dir to the built-in ones (as
// presets_dir on the orchestrator does, or the CLI's --presets).
func WithPresetsDir(dir string) LoadOption {
	return func(o *loadOptions) { o.presetsDir = dir }
}

// WithRegistry builds with reg instead of [NewRegistry]'s built-in types.
func WithRegistry(reg *agents.Registry) LoadOption {
	return func(o *loadOptions) { o.reg = reg }
}

// Load reads and builds the workflow file at path. A workflow with problems gives
// an error listing every one with its file:line:col (an *load.Error).
func Load(path string, opts ...LoadOption) (*Workflow, error) {
	data, err := orchestrator.ReadFile(path, orchestrator.DefaultLimits)
	if err != nil {
		return nil, err
	}
	w, err := Parse(data, path, opts...)
	if err != nil {
		return nil, err
	}
	w.file = absFile(path)
	return w, nil
}

// Parse builds a workflow from YAML bytes; name is used in error positions.
func Parse(data []byte, name string, opts ...LoadOption) (*Workflow, error) {
	o := loadOptions{}
	for _, fn := range opts {
		fn(&o)
	}
	if err := o.inject.check(o.reg != nil); err != nil {
		return nil, err
	}
	if o.reg == nil {
		o.reg = newRegistryWith(legacy.Options{}, o.inject)
	}
	var popts []orchestrator.Option
	if o.presetsDir != "" {
		base, err := scoring.Default()
		if err != nil {
			return nil, err
		}
		cat, err := base.LoadDir(o.presetsDir)
		if err != nil {
			return nil, fmt.Errorf("presets %s: %w", o.presetsDir, err)
		}
		popts = append(popts, orchestrator.WithPresets(cat))
	}
	if o.pricing != nil {
		popts = append(popts, orchestrator.WithPricing(o.pricing))
	}
	if o.strict {
		popts = append(popts, orchestrator.WithStrict())
	}
	popts = append(popts, orchestrator.WithToolServers(readMCP))
	wf, warnings, err := orchestrator.Parse(data, name, o.reg, popts...)
	if err != nil {
		var le *load.Error
		if errors.As(err, &le) && len(le.Warnings) == 0 {
			// A user fixing the errors sees the doubtful things too, at once.
			le.Warnings = warnings
		}
		return nil, err
	}
	if o.inject.lookup != nil {
		useMCPEnv(wf, o.inject.lookup) // env:, PATH and header ${VAR}s of mcp_servers
	}
	return &Workflow{wf: wf, Warnings: warnings, Notes: wf.Notes, Hints: wf.Hints, Digest: digest(data, wf.Sources),
		src: data, name: name}, nil
}

// digest is the SHA-256 of the workflow source; a workflow without
// referenced files keeps the digest of its bytes alone (so checkpoints taken
// before workflow_ref existed still resume), otherwise each referenced file's
// name and contents are hashed after it.
func digest(data []byte, sources []orchestrator.Source) string {
	if len(sources) == 0 {
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:])
	}
	h := sha256.New()
	h.Write(data)
	for _, s := range sources {
		fmt.Fprintf(h, "\x00%s\x00%d\x00", s.Name, len(s.Data))
		h.Write(s.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Preflight lists what would fail as soon as the workflow runs in this
// environment (an API key that is not set, with the agents that need it);
// `cogloop validate` prints them as warnings. Nothing is called.
func (w *Workflow) Preflight() []string { return w.wf.Preflight() }

// ID is the orchestrator id.
func (w *Workflow) ID() string { return w.wf.ID }

// RunOption adjusts one run.
type RunOption func(*runOptions)

type runOptions struct {
	models      agents.ModelSource
	observe     event.Observer
	runID       string
	store       memory.Store
	checkpoints bool
	resume      bool
	allowChange bool
	fork        string // the parent run of WithFork
	forkPass    string
	cpTTL       time.Duration
	leaseTTL    time.Duration
	keep        time.Duration
	tracing     tracingOptions
	human       human.Func
}

// WithMemory keeps loop histories (persist_across_runs), memories and checkpoints
// in store, e.g. a Redis store from memory/redis. The default is an in-memory
// store of the Workflow's own, shared by its runs and no other workflow's
// (give [DefaultMemory] to share the process-wide one).
func WithMemory(store memory.Store) RunOption {
	return func(o *runOptions) { o.store = store }
}

// WithCheckpoints saves each loop's state after every iteration under the run id,
// so a run that dies can be resumed with [WithResume].
func WithCheckpoints() RunOption {
	return func(o *runOptions) { o.checkpoints = true }
}

// WithResume continues the run named runID from its checkpoints: completed
// iterations are not run again. A workflow whose source changed since that run is
// refused unless allowConfigChange is true.
func WithResume(runID string, allowConfigChange bool) RunOption {
	return func(o *runOptions) {
		o.runID, o.resume, o.checkpoints, o.allowChange = runID, true, true, allowConfigChange
	}
}

// WithCheckpointTTL expires the run's checkpoint after ttl without a save,
// instead of the store's CheckpointTTL (7 days by default); it matters only
// with [WithCheckpoints] or [WithResume].
func WithCheckpointTTL(ttl time.Duration) RunOption {
	return func(o *runOptions) { o.cpTTL = ttl }
}

// WithLeaseTTL sets how long the run's lease lives without renewal (default
// [lease.DefaultTTL]): how long a run whose process died on another
// host stays refused to a resume. It matters only with [WithCheckpoints] or
// [WithResume], with a store that implements [memory.Leases].
func WithLeaseTTL(ttl time.Duration) RunOption {
	return func(o *runOptions) { o.leaseTTL = ttl }
}

// DefaultKeepFinished is how long a run's checkpoint is kept after the run
// ended ok: long enough to fork from it or look at it, then it expires.
const DefaultKeepFinished = 24 * time.Hour

// WithKeepFinished keeps the checkpoint of a run that ended ok for keep
// (default [DefaultKeepFinished]) instead of the checkpoint TTL; a failed or
// stopped run keeps its checkpoint TTL, so it can be resumed.
func WithKeepFinished(keep time.Duration) RunOption {
	return func(o *runOptions) { o.keep = keep }
}

var (
	defaultMemoryOnce sync.Once
	defaultMemory     memory.Store
	defaultMemoryErr  error
)

// DefaultMemory is a process-wide in-memory store, for runs of several
// workflows that mean to share one ([WithMemory]); a run given no store uses
// its Workflow's own.
func DefaultMemory() (memory.Store, error) {
	defaultMemoryOnce.Do(func() {
		defaultMemory, defaultMemoryErr = memory.NewInMemory(memory.Options{})
	})
	return defaultMemory, defaultMemoryErr
}

// ErrNoCheckpoint means a resume named a run that has no checkpoint in the store.
var ErrNoCheckpoint = errors.New("no checkpoint for this run")

// ErrWorkflowChanged means a resume named a run of a different workflow source.
var ErrWorkflowChanged = errors.New("the workflow changed since the run was checkpointed")

// WithModels answers the run's LLM calls from src instead of the configured
// providers (the scripted model, a test fake): each agent src has a model for
// (src.ModelFor(id) returns one) is answered by it; an agent src returns a
// nil model and no error for keeps its configured provider, so src may
// replace some agents only; an error fails that agent's call. To give YAML a
// model of your own by name, use [WithProvider] instead.
func WithModels(src agents.ModelSource) RunOption {
	return func(o *runOptions) { o.models = src }
}

// WithObserver sends every event of the run to fn. Observers compose: each
// WithObserver adds one, and every event goes to each in the order given.
func WithObserver(fn event.Observer) RunOption {
	return func(o *runOptions) { o.observe = chain(o.observe, fn) }
}

// WithRunID names the run (default: a random id).
func WithRunID(id string) RunOption {
	return func(o *runOptions) { o.runID = id }
}

// Result is what a run produced.
type Result struct {
	// RunID names the run.
	RunID string
	// Response is the workflow's answer: the last successful agent's response.
	Response any
	// Outputs holds every top-level agent's output in run order.
	Outputs *agents.Outputs
	// Usage sums the model tokens of the run and their cost (Usage.Cost, priced
	// with the workflow's pricing table; calls of unpriced models count none).
	Usage spend.Usage
	// BudgetExceeded reports that a model call was refused because a budget
	// (the workflow's or a loop's) had no room for it.
	BudgetExceeded bool
	// Status is [StatusOK] or [StatusFailed]: failed when the final agent
	// failed, a loop stopped with stop_reason error, or the run stopped early
	// (a fatal error, a cancellation); [StatusWaiting] when a human step
	// waits for an answer, [StatusPaused] when a pause stopped it (Run's
	// error then wraps the *fault.Interrupt).
	Status string
	// Errors are every agent failure of the run in the order they happened,
	// also those a loop survived, one per path.
	Errors []RunError
	// Warnings are the run's warning events in order.
	Warnings []RunWarning
	// Waiting is the question a run with [StatusWaiting] waits for; answer
	// it with [Answer] and continue with [WithResume].
	Waiting *human.Question
}

// Text is the response as text.
func (r *Result) Text() string { return agents.Text(r.Response) }

// Failed lists the top-level agents that ended as error records, with their errors.
func (r *Result) Failed() map[string]string {
	out := map[string]string{}
	r.Outputs.Each(func(id string, o agents.Output) bool {
		if o.Failed() {
			out[id] = o.Err
		}
		return true
	})
	return out
}

// Run runs the workflow on input (text, or any JSON-like value). Agents that
// fail become error records in the outputs, as in OrKa, and the run goes on; a
// fatal error or a cancellation stops it. A failed run (see [Result.Status])
// returns its result together with an error wrapping [ErrRunFailed] and naming
// the first error's path and message (and the cause, such as context.Canceled,
// when the run was stopped).
func (w *Workflow) Run(ctx context.Context, input any, opts ...RunOption) (*Result, error) {
	o := runOptions{}
	for _, fn := range opts {
		fn(&o)
	}
	// A workflow that declares inputs (orchestrator: inputs:) takes an
	// object with the required ones; defaults fill in the rest.
	input, err := w.wf.BindInputs(input)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRunFailed, err)
	}
	if o.runID == "" {
		o.runID = NewRunID()
	}
	if o.store == nil {
		store, err := w.mem.get()
		if err != nil {
			return nil, err
		}
		o.store = store
	}
	if o.human != nil && o.checkpoints {
		return w.runAnswering(ctx, input, o, opts)
	}
	next, spanContext := o.tracing.observer(ctx, o.observe)
	col := &collector{next: next}
	run := &agents.Run{ID: o.runID, Observe: col.observe, Models: o.models, Memory: o.store, Workflow: w.wf.ID,
		MaxTotalIterations: w.wf.MaxTotalIterations, Strict: w.wf.Strict,
		Deltas: o.tracing.deltas, ModelCalls: o.tracing.tp != nil || o.tracing.calls, SpanContext: spanContext}
	if col.next == nil {
		// Only the collector reads the events: the others need not be built.
		run.Wants = collects
	}
	if o.fork != "" && o.resume {
		return nil, errForkResume
	}
	var forkedAt string
	if o.checkpoints {
		if ls, ok := o.store.(memory.Leases); ok {
			l, err := lease.Take(ctx, ls, o.runID, o.leaseTTL)
			if err != nil {
				return nil, err
			}
			defer releaseLease(l)
			run.Lease = l
		}
		var cp *agents.Checkpoint
		var err error
		if o.fork != "" {
			cp, forkedAt, err = w.forkCheckpoint(ctx, o, input, run.Lease.Holder())
		} else {
			cp, err = w.checkpoint(ctx, o)
		}
		if err != nil {
			return nil, err
		}
		run.Checkpoint = cp.WithTTL(o.cpTTL).FencedBy(run.Lease)
		if !o.resume && o.fork == "" {
			if err := run.Checkpoint.Save(ctx, startPath, w.start(input)); err != nil {
				return nil, fmt.Errorf("start run %q: %w", o.runID, err)
			}
		}
		run.Paused = pauser(o.store, o.runID)
	}
	human.Provide(run, o.human)
	// The run's root budget scope limits nothing; a workflow with budget:
	// opens its limited scope inside it.
	budget := spend.NewBudget(spend.Limit{}, w.wf.Pricing())
	if run.Checkpoint != nil {
		// Limited scopes record what they commit, and a resume restores it.
		budget.WithJournal(run.Checkpoint)
	}
	start := time.Now()
	startEvent := event.Event{Kind: event.RunStart, Node: w.wf.ID}
	if o.fork != "" {
		startEvent.Data = map[string]any{"forked_from": map[string]any{"run": o.fork, "pass": forkedAt}}
	}
	if l, ok := w.wf.Budget(); ok && l.Limited() {
		// The limits, for a live view of spend against them (no secrets:
		// two numbers).
		if startEvent.Data == nil {
			startEvent.Data = map[string]any{}
		}
		startEvent.Data["budget"] = map[string]any{"max_tokens": l.MaxTokens, "max_cost": l.MaxCost}
	}
	run.Emit(startEvent)
	// The run's MCP servers start here and end with it; a server that does
	// not start, or lacks a tool an agent names, fails the run before any agent.
	var out agents.Output
	runCtx, stopMCP, err := w.startMCP(ctx, o.models)
	if err == nil {
		out, err = w.wf.Run(runCtx, agents.Input{Value: input, Run: run, Budget: budget})
		stopMCP()
	}
	end := event.Event{Kind: event.RunEnd, Node: w.wf.ID, Duration: time.Since(start), Response: out.Text(),
		Data: map[string]any{"cost": out.Usage.Cost}}
	if out.Usage != (spend.Usage{}) {
		u := out.Usage
		end.Usage = &u
	}
	exceeded := budget.Exceeded()
	if l, ok := w.wf.Budget(); ok {
		end.Data["budget"] = map[string]any{"max_tokens": l.MaxTokens, "max_cost": l.MaxCost, "exceeded": exceeded}
	} else if exceeded {
		end.Data["budget"] = map[string]any{"exceeded": true}
	}
	if err != nil {
		end.Error = err.Error()
	}
	res := &Result{RunID: o.runID, Response: out.Response, Outputs: out.Children, Usage: out.Usage, BudgetExceeded: exceeded}
	col.mu.Lock()
	res.Errors, res.Warnings = col.errors, col.warnings
	loopErr := col.loopErr
	col.mu.Unlock()
	runErr := res.outcome(err, w.wf.ID, loopErr)
	if it := fault.AsInterrupt(err); it != nil {
		runErr, end.Error = res.interrupted(ctx, it, err, o), ""
		if res.Waiting != nil {
			end.Data["waiting_for"] = waitingFor(res.Waiting)
		} else {
			end.Data["paused_at"] = it.Path
		}
	} else if run.Checkpoint != nil && len(run.Checkpoint.Paths(human.StatePrefix)) > 0 {
		_ = unindex(context.WithoutCancel(ctx), o.store, o.runID) // it waited, and does no more
	}
	if res.Status == StatusOK && run.Checkpoint != nil {
		if err := finishCheckpoint(ctx, run, o.keep); err != nil {
			res.Status = StatusFailed
			runErr = fmt.Errorf("%w: %w", ErrRunFailed, err)
			end.Error = err.Error()
		}
	}
	// run.end carries the outcome, so a run record (the event stream) says it.
	end.Data["status"] = res.Status
	run.Emit(end)
	return res, runErr
}

// outcome sets r.Status from the run's error, its final agent and its loops,
// and returns the error Run returns.
func (r *Result) outcome(err error, workflow string, loopErr bool) error {
	r.Status = StatusOK
	if err != nil {
		r.Status = StatusFailed
		return fmt.Errorf("%w: workflow %q: %w", ErrRunFailed, workflow, err)
	}
	cause := ""
	if id, last, ok := r.Outputs.Last(); !ok {
		cause = "the workflow ran no agent"
	} else if last.Failed() {
		cause = fmt.Sprintf("final agent %q failed", id)
	} else if loopErr {
		cause = "a loop stopped with stop_reason error"
	}
	if cause == "" {
		return nil
	}
	r.Status = StatusFailed
	if len(r.Errors) > 0 {
		return fmt.Errorf("%w: %s; first error: %w", ErrRunFailed, cause, r.Errors[0])
	}
	return fmt.Errorf("%w: %s", ErrRunFailed, cause)
}

// checkpoint prepares checkpointing for a run, loading the saved state on a resume.
func (w *Workflow) checkpoint(ctx context.Context, o runOptions) (*agents.Checkpoint, error) {
	if !o.resume {
		return agents.NewCheckpoint(o.store, o.runID, w.Digest, nil), nil
	}
	cp, ok, err := o.store.LoadCheckpoint(ctx, o.runID)
	if err != nil {
		return nil, fmt.Errorf("resume run %q: %w", o.runID, err)
	}
	if !ok {
		return nil, fmt.Errorf("resume run %q: %w (it finished long ago, never checkpointed, or ran against another store)", o.runID, ErrNoCheckpoint)
	}
	if cp.Digest != w.Digest && !o.allowChange {
		return nil, fmt.Errorf("resume run %q: %w (checkpoint digest %.12s, file digest %.12s); resume with the original file, or allow the change explicitly", o.runID, ErrWorkflowChanged, cp.Digest, w.Digest)
	}
	return agents.NewCheckpoint(o.store, o.runID, cp.Digest, cp.State), nil
}

// NewRunID returns a fresh run id: a UTC timestamp and 64 random bits.
func NewRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// AgentIDs lists every agent id the file defines, in file order, including the
// agents of nested workflows (a loop's internal_workflow): the ids a scripted
// replies file may answer for.
func (w *Workflow) AgentIDs() []string { return w.wf.AllIDs() }
