package validate

import (
	"context"
	"errors"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/internal/values"
	"github.com/cogloop/cogloop/scoring"
)

// AssessmentError is overall_assessment when the validation itself failed.
const AssessmentError = "ERROR"

// LoopApproved is the validation_score at or above which loop_validator says
// APPROVED (else REJECTED), as OrKa does.
const LoopApproved = 0.7

// LoopConfig configures a [LoopValidator].
type LoopConfig struct {
	// ID is the agent id: a run's scripted model answers by it.
	ID string
	// Preset gives the criteria asked about (its context: loop_convergence in
	// loop mode, graphscout in path mode) and the prompt's wording.
	Preset *scoring.Preset
	// Target is the agent whose output is evaluated; empty (or an agent that
	// has not run) means the whole input and previous outputs.
	Target string
	// CustomPrompt replaces the built-in prompt; "{content}" in it becomes the
	// content evaluated.
	CustomPrompt string
	ModelConfig
}

// LoopValidator is the loop_validator agent: it asks a model for a true/false
// verdict on each criterion of a preset, reads the answer with a lenient
// parsing ladder, and returns OrKa's validation mapping, which a loop with
// boolean scoring weighs with its own preset. It is immutable and safe for
// concurrent use.
type LoopValidator struct {
	id       string
	preset   *scoring.Preset
	target   string
	custom   string
	judge    judge
	criteria *criteria
}

var (
	_ agents.Agent     = (*LoopValidator)(nil)
	_ agents.ModelUser = (*LoopValidator)(nil)
)

// Models names the model the validator asks, as its calls are priced
// ([agents.ModelUser]).
func (v *LoopValidator) Models() []string { return v.judge.models() }

// NewLoopValidator builds a loop_validator.
func NewLoopValidator(c LoopConfig) (*LoopValidator, error) {
	if c.Preset == nil || len(c.Preset.Criteria) == 0 {
		return nil, errors.New("loop_validator needs a preset with criteria")
	}
	j, err := newJudge(c.ID, c.ModelConfig)
	if err != nil {
		return nil, err
	}
	return &LoopValidator{id: c.ID, preset: c.Preset.Clone(), target: c.Target, custom: c.CustomPrompt,
		judge: j, criteria: newCriteria(c.Preset.Keys())}, nil
}

// Run evaluates and returns, as both Fields and Response:
//
//	boolean_evaluations  {dimension: {criterion: bool}} for every criterion
//	validation_score     passed / total, unweighted
//	passed_criteria      ["dimension.criterion", ...]
//	failed_criteria      [...]
//	overall_assessment   APPROVED (score ≥ 0.7) or REJECTED
//
// When the model cannot be asked (no reply, script exhausted, timeout) the
// result is every criterion false, score 0, assessment ERROR and the error
// message in error; Run fails only when ctx is done.
func (v *LoopValidator) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	text := v.prompt(in)
	reply, usage, err := v.judge.ask(ctx, in, text)
	if err != nil {
		if ctx.Err() != nil {
			return agents.Output{Prompt: text, Usage: usage}, err
		}
		warn(in, v.id, "validation failed, every criterion counts as failed: %v", err)
		f := v.fields(v.criteria.empty())
		f["overall_assessment"] = AssessmentError
		f["validation_score"] = 0.0
		f["error"] = err.Error()
		return output(f, text, usage), nil
	}
	ev, how := v.criteria.parse(reply)
	if how == ParsedNone {
		warn(in, v.id, "the model's answer holds no verdicts, every criterion counts as failed: %q", fault.Truncate(reply, 80))
	}
	return output(v.fields(ev), text, usage), nil
}

func (v *LoopValidator) fields(ev map[string]map[string]bool) map[string]any {
	var passed, failed []string
	for _, k := range v.criteria.keys {
		dim, name, _ := strings.Cut(k, ".")
		if ev[dim][name] {
			passed = append(passed, k)
		} else {
			failed = append(failed, k)
		}
	}
	score := float64(len(passed)) / float64(len(v.criteria.keys))
	assessment := scoring.Rejected
	if score >= LoopApproved {
		assessment = scoring.Approved
	}
	return map[string]any{
		"boolean_evaluations": evalsValue(ev),
		"validation_score":    score,
		"passed_criteria":     values.List(passed),
		"failed_criteria":     values.List(failed),
		"overall_assessment":  assessment,
	}
}

// content is what is evaluated: the target's output, else the whole call.
func (v *LoopValidator) content(in agents.Input) string {
	if v.target != "" {
		if o, ok := in.Previous.Get(v.target); ok {
			return outputContent(o)
		}
		warn(in, v.id, "evaluation_target %q has no output here (no agent of that id ran before this validator); evaluating the whole input", v.target)
	}
	return payloadContent(in)
}

// prompt builds the question: the custom prompt with {content} replaced, or
// the built-in prompt of the preset.
func (v *LoopValidator) prompt(in agents.Input) string {
	content := v.content(in)
	if v.custom != "" {
		return strings.ReplaceAll(v.custom, "{content}", content)
	}
	var b strings.Builder
	what := "the content below"
	switch v.preset.Context {
	case scoring.ContextLoopConvergence:
		what = "this loop iteration's output"
	case scoring.ContextGraphScout:
		what = "this proposed execution path"
	}
	heading(&b, what, v.preset)
	b.WriteString("\nContent to evaluate:\n")
	b.WriteString(content)
	b.WriteString("\n")
	if v.preset.Context == scoring.ContextLoopConvergence {
		writeHistory(&b, in)
	}
	b.WriteString("\n")
	writeCriteria(&b, v.preset)
	writeAnswerForm(&b, v.preset, "")
	return b.String()
}
