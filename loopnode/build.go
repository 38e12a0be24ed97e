package loopnode

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
	"github.com/cogloop/cogloop/prompt"
)

// Config is a loop's definition as a Go value. [NewLoop] builds a loop from
// it; the YAML factory (type: loop, [New]) reads a definition into a Config
// and calls the same constructor, so a loop built in Go and one written in
// YAML run the same code. Zero fields take the defaults their comments name;
// MaxLoops, Threshold and Body have none.
type Config struct {
	// ID names the loop in paths, events, checkpoints and persisted history.
	ID string
	// Body is what one pass runs: an [agents.Sequence] of steps (their
	// outputs are what scores, lessons and templates read), a built YAML
	// workflow, or any other agent, which runs as the one step of a sequence
	// named by its ID() (a fork, a router, a loop), else "body".
	Body agents.Agent
	// MaxLoops bounds the passes (1..1000; YAML's max_loops, default 5 there).
	MaxLoops int
	// Threshold is the score (0..1) that ends the loop (score_threshold,
	// default 0.8 in YAML).
	Threshold float64
	// Score says how a pass's score is read from its outputs
	// (score_extraction_pattern, score_extraction_config, score_from, ...);
	// the zero value uses OrKa's default patterns.
	Score scorer.ScoreConfig
	// Lessons are the cognitive_extraction patterns that fill each pass's
	// insights, improvements and mistakes.
	Lessons cognition.ExtractConfig
	// Metadata are past_loops_metadata templates (key → template over
	// loop_number, score, insights, improvements, mistakes, input, ...); nil
	// keeps OrKa's default entry. MetadataFunc adds Go-computed fields to
	// each entry after the templates.
	Metadata     map[string]string
	MetadataFunc func(p Pass) map[string]any
	// Until, when set, ends the loop after a pass it returns true for, with
	// stop reason [StopCondition] (besides the threshold).
	Until func(p Pass) bool
	// MaxPastLoops bounds the history kept (default 20).
	MaxPastLoops int
	// Timeout bounds the whole loop (0: no bound; YAML's default is
	// [DefaultTimeout]); IterationTimeout one pass; Delay waits between passes.
	Timeout, IterationTimeout, Delay time.Duration
	// Feedback is what the next pass gets as input: [FeedbackNone] (default),
	// [FeedbackReplace] or [FeedbackAppend].
	Feedback string
	// Return is which pass the loop's answer comes from: [ReturnLast]
	// (default), [ReturnBest] or [ReturnLastSuccessful].
	Return string
	// OutputAgent names the agent of Body whose response is the answer
	// (default: the first agent with non-empty text).
	OutputAgent string
	// MaxLength cuts each pass's answer in the iterations list (default
	// [DefaultMaxLength]).
	MaxLength int
	// Persist keeps the history across runs in the run's memory store (the
	// default in-memory store, or Redis), expiring after HistoryTTL (0: never).
	Persist    bool
	HistoryTTL time.Duration
	// HistoryKey names the persisted history to share it on purpose between
	// workflows (YAML history_key); "" scopes it by the workflow's id.
	HistoryKey string
	// StopOnError ends the loop at the first pass with a failed agent;
	// otherwise MaxFailedPasses failed passes in a row do (default
	// [DefaultMaxFailedPasses]).
	StopOnError     bool
	MaxFailedPasses int
	// Budget limits the tokens and cost of all passes; nil limits nothing.
	Budget *spend.Limit
	// Retry runs a failed pass again under its policy; nil does not.
	Retry *retry.Retrier
	// RegexBudget bounds the regex time of one pass (default
	// cognition.DefaultPassBudget).
	RegexBudget time.Duration

	// StopWhen are stop conditions (YAML stop_when:): the loop ends after a
	// pass when any of them fires (one {Kind: "all"} needs all of its Of).
	StopWhen []Condition
	// PastLoopsBudget bounds the tokens of the history the prompts see
	// (past_loops_budget: max_tokens; 0: all of it, OrKa's way), picking
	// entries by PastLoopsKeep: "recent" (default), "best" or "mixed".
	PastLoopsBudget int
	PastLoopsKeep   string
	// InputMappings make values visible to the passes' prompts as
	// {{ target }}; OutputMappings add outputs.<target> to the loop's output
	// (input_mappings:, output_mappings:).
	InputMappings  []InputMapping
	OutputMappings []OutputMapping
	// Vars are loop variables with their initial values (vars:; a text with
	// {{ }} is a template rendered once at the loop's start); Update sets
	// them after each pass, in order, from templates (update:).
	Vars   []Var
	Update []Var
	// Inputs are fields of the loop's input its prompts see as {{ name }}
	// (inputs:); Outputs names what the loop's output carries under outputs
	// (outputs:: output mapping targets or variables).
	Inputs  []InputDecl
	Outputs []string
	// FailOn lists stop reasons that fail the run ([StopMaxLoops],
	// [StopTimeout]) instead of ending the loop normally (fail_on:).
	FailOn []string
	// ScoringContext is what the passes see as {{ scoring_context }} (the
	// scoring: block's context; "" leaves it None).
	ScoringContext string

	// yaml holds what only the YAML reader sets (stop_when, vars, mappings,
	// declared inputs and outputs, ...) and the patterns and templates it
	// compiled itself to place errors at file:line:col.
	yaml *yamlParts
}

// yamlParts are the settings the YAML reader compiles itself, so that their
// errors name file:line:col: the Go fields above, read from YAML.
type yamlParts struct {
	inputs       []inputMapping
	outputs      []outputMapping
	stop         *condition
	vars         []loopVar
	updates      []varUpdate
	declared     []declaredInput
	scoreMatters bool
	scorer       *scorer.Scorer
	extractor    *cognition.Extractor
	metas        []metaTemplate
}

// Feedback modes (Config.Feedback, YAML feedback:).
const (
	FeedbackNone    = feedbackNone
	FeedbackReplace = feedbackReplace
	FeedbackAppend  = feedbackAppend
)

// Return modes (Config.Return, YAML return:).
const (
	ReturnLast           = "last"
	ReturnBest           = "best"
	ReturnLastSuccessful = "last_successful"
)

// Pass is what Config.Until and Config.MetadataFunc see of a pass that ran
// to the end.
type Pass struct {
	// Number is the pass (1-based), Score its score (ScoreFound false when
	// no score could be read).
	Number     int
	Score      float64
	ScoreFound bool
	// Answer is the pass's answer (OutputAgent's response, else the first
	// agent's text).
	Answer any
	// Lessons are what cognitive extraction found in the pass.
	Lessons cognition.Extraction
	// Input is the pass's task (after feedback), Outputs its agents' outputs.
	Input   any
	Outputs *agents.Outputs
}

// NewLoop builds a loop from cfg: the constructor behind type: loop too. A
// field out of range is an error naming it.
func NewLoop(cfg Config) (*Node, error) {
	errs := checkConfig(cfg)
	y := cfg.yaml
	if y == nil {
		var goErrs []error
		y, goErrs = compileGo(cfg)
		errs = append(errs, goErrs...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	n := &Node{
		id: cfg.ID, inner: passBody(cfg.Body), maxLoops: cfg.MaxLoops, threshold: cfg.Threshold,
		scorer: y.scorer, extractor: y.extractor, metas: y.metas, metaFunc: cfg.MetadataFunc, until: cfg.Until,
		maxPastLoops:  orDefault(cfg.MaxPastLoops, 20),
		historyBudget: historyBudget{maxTokens: cfg.PastLoopsBudget, keep: cmp.Or(cfg.PastLoopsKeep, keepRecent)},
		timeout:       cfg.Timeout, iterTimeout: cfg.IterationTimeout, delay: cfg.Delay,
		outputAgent: cfg.OutputAgent, persistent: cfg.Persist, historyTTL: cfg.HistoryTTL, historyKey: cfg.HistoryKey,
		feedback: cmp.Or(cfg.Feedback, feedbackNone), inputs: y.inputs, outputs: y.outputs,
		best: cfg.Return == ReturnBest, lastSuccessful: cfg.Return == ReturnLastSuccessful,
		stop: y.stop, regexBudget: cmp.Or(cfg.RegexBudget, cognition.DefaultPassBudget), scoreMatters: y.scoreMatters,
		stopOnError: cfg.StopOnError, maxFailed: orDefault(cfg.MaxFailedPasses, DefaultMaxFailedPasses),
		vars: y.vars, updates: y.updates, declared: y.declared, declaredOuts: cfg.Outputs,
		maxLength: orDefault(cfg.MaxLength, DefaultMaxLength), retry: cfg.Retry, failOn: cfg.FailOn,
	}
	if cfg.ScoringContext != "" {
		n.scoringCtx = cfg.ScoringContext
	}
	if cfg.yaml == nil {
		if err := errors.Join(n.compileGoVars(cfg), n.checkGoRefs()); err != nil {
			return nil, err
		}
	}
	if cfg.Budget != nil {
		n.budget, n.budgeted = *cfg.Budget, true
		n.budget.Name = "loop " + strconv.Quote(n.id)
	}
	n.sameAnswer = n.stop.comparesAnswers()
	n.kind = n.loopKind()
	if d, ok := n.inner.(interface{ Defines(id string) bool }); ok {
		n.stop.setDefines(d.Defines)
	}
	return n, nil
}

// checkConfig reports the fields of cfg out of range, each naming the field.
func checkConfig(cfg Config) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("loop %q: "+format, append([]any{cfg.ID}, args...)...))
	}
	if cfg.Body == nil {
		bad("Body is nil: give the agent (or agents.Sequence) one pass runs")
	}
	if cfg.MaxLoops < 1 || cfg.MaxLoops > 1000 {
		bad("MaxLoops must be 1..1000, not %d", cfg.MaxLoops)
	}
	if cfg.Threshold < 0 || cfg.Threshold > 1 {
		bad("Threshold must be 0..1, not %g", cfg.Threshold)
	}
	for what, d := range map[string]time.Duration{"Timeout": cfg.Timeout, "IterationTimeout": cfg.IterationTimeout} {
		if d < 0 || d > maxTimeout {
			bad("%s must be 0..24h, not %s", what, d)
		}
	}
	return append(append(errs, checkSizes(cfg)...), checkChoices(cfg)...)
}

// checkSizes reports the counts and durations of cfg below zero or too big.
func checkSizes(cfg Config) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("loop %q: "+format, append([]any{cfg.ID}, args...)...))
	}
	for what, v := range map[string]int{"MaxPastLoops": cfg.MaxPastLoops, "MaxLength": cfg.MaxLength, "MaxFailedPasses": cfg.MaxFailedPasses} {
		if v < 0 {
			bad("%s must not be negative, not %d", what, v)
		}
	}
	if cfg.PastLoopsBudget < 0 || cfg.PastLoopsBudget > maxHistoryTokens {
		bad("PastLoopsBudget must be 0..%d tokens, not %d", maxHistoryTokens, cfg.PastLoopsBudget)
	}
	if cfg.Delay < 0 || cfg.RegexBudget < 0 || cfg.HistoryTTL < 0 {
		bad("Delay, RegexBudget and HistoryTTL must not be negative")
	}
	return errs
}

// checkChoices reports the fields of cfg that name none of their choices.
func checkChoices(cfg Config) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("loop %q: "+format, append([]any{cfg.ID}, args...)...))
	}
	oneOf := func(field, v string, allowed ...string) {
		if v != "" && !slices.Contains(allowed, v) {
			bad("%s must be %s or %s, not %q", field, strings.Join(allowed[:len(allowed)-1], ", "), allowed[len(allowed)-1], v)
		}
	}
	oneOf("Feedback", cfg.Feedback, FeedbackNone, FeedbackReplace, FeedbackAppend)
	oneOf("Return", cfg.Return, ReturnLast, ReturnBest, ReturnLastSuccessful)
	oneOf("PastLoopsKeep", cfg.PastLoopsKeep, keepRecent, keepBest, keepMixed)
	for i, r := range cfg.FailOn {
		oneOf(fmt.Sprintf("FailOn[%d]", i), r, failOnReasons...)
	}
	return errs
}

// compileGo compiles what the YAML reader compiles itself (with positions)
// from a Go-built Config: the score, lesson and metadata patterns and
// templates, the stop conditions and the mappings. Vars and inputs follow
// once the node exists ([Node.compileGoVars]): their names must not hide
// the names the loop binds.
func compileGo(cfg Config) (*yamlParts, []error) {
	var errs []error
	bad := func(field string, err error) { errs = append(errs, fmt.Errorf("loop %q: %s: %w", cfg.ID, field, err)) }
	y := &yamlParts{}
	var err error
	if y.scorer, err = scorer.NewScorer(cfg.Score); err != nil {
		bad("Score", err)
	}
	if y.extractor, err = cognition.NewExtractor(cfg.Lessons); err != nil {
		bad("Lessons", err)
	}
	if y.metas, err = goMetadata(cfg.Metadata); err != nil {
		bad("Metadata", err)
	}
	if y.stop, err = compileConditions(cfg.StopWhen, cfg.Threshold); err != nil {
		bad("StopWhen", err)
	}
	if y.inputs, err = compileInputMappings(cfg.InputMappings); err != nil {
		bad("InputMappings", err)
	}
	if y.outputs, err = compileOutputMappings(cfg.OutputMappings); err != nil {
		bad("OutputMappings", err)
	}
	y.scoreMatters = y.stop == nil || cfg.Return == ReturnBest || readsScore(y.stop) || !reflect.ValueOf(cfg.Score).IsZero()
	return y, errs
}

// passBody is what a pass runs for body: a sequence or a workflow (an agent
// that tells which agents it defines) as it is, another agent as the one step
// of a sequence, so that its output is recorded as the pass's outputs.
func passBody(body agents.Agent) agents.Agent {
	switch body.(type) {
	case agents.Sequence, *agents.Sequence, interface{ Defines(id string) bool }:
		return body
	}
	id, typ := "body", "go"
	if n, ok := agents.Unwrap(body).(interface{ ID() string }); ok && n.ID() != "" {
		id = n.ID()
	}
	if t, ok := agents.Unwrap(body).(interface{ Type() string }); ok {
		typ = t.Type()
	}
	return agents.Sequence{Steps: []agents.Step{agents.NewStep(id, typ, body)}}
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// goMetadata parses Config.Metadata's templates in key order; nil keeps
// OrKa's default entry.
func goMetadata(m map[string]string) ([]metaTemplate, error) {
	if m == nil {
		return defaultMetadata()
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]metaTemplate, 0, len(keys))
	for _, k := range keys {
		t, err := prompt.Parse("past_loops_metadata."+k, m[k], prompt.Options{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out = append(out, newMeta(k, t))
	}
	return out, nil
}

// defaultMetadata is OrKa's default past_loops entry: each key renders its
// own variable.
func defaultMetadata() ([]metaTemplate, error) {
	out := make([]metaTemplate, 0, len(defaultMetadataKeys))
	for _, k := range defaultMetadataKeys {
		t, err := prompt.Parse("past_loops_metadata."+k, "{{ "+k+" }}", prompt.Options{})
		if err != nil {
			return nil, err
		}
		out = append(out, newMeta(k, t))
	}
	return out, nil
}

// goEntry adds Config.MetadataFunc's fields to a pass's history entry.
func (n *Node) goEntry(entry map[string]any, p Pass) {
	if n.metaFunc == nil {
		return
	}
	for k, v := range n.metaFunc(p) {
		entry[k] = agents.Plain(v)
	}
}

// goStop reports whether Config.Until ends the loop after pass p.
func (n *Node) goStop(p Pass) bool { return n.until != nil && n.until(p) }

// ID is the loop's id.
func (n *Node) ID() string { return n.id }

// Type is the loop's agent type name, loop.
func (n *Node) Type() string { return "loop" }
