package validate

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/internal/values"
	"github.com/cogloop/cogloop/scoring"
)

// planSources are the agent ids whose output plan_validator takes as the
// proposed plan when it has no evaluation_target (OrKa's GraphScout ids).
var planSources = []string{"graph_scout", "graphscout_planner", "path_proposer", "dynamic_router"}

// PlanConfig configures a [PlanValidator].
type PlanConfig struct {
	// ID is the agent id: a run's scripted model answers by it.
	ID string
	// Calculator weighs the verdicts; its preset gives the criteria and the
	// prompt's wording (graphscout by default).
	Calculator *scoring.Calculator
	// Catalog, when set, lets an iteration's scoring_context (the enclosing
	// loop's scoring context) switch to that context's preset of the same
	// level, without custom weights, as OrKa's plan validator does.
	Catalog *scoring.Catalog
	// Target is the agent whose output is the plan; empty means the first of
	// graph_scout, graphscout_planner, path_proposer, dynamic_router that ran,
	// else the last output with decision_type, target or path, else the last
	// output.
	Target string
	ModelConfig
}

// PlanValidator is the plan_validator agent: it asks a model for true/false
// verdicts on a proposed plan, weighs them with its calculator and returns
// validation_score, overall_assessment, boolean_evaluations, breakdown,
// passed_criteria, failed_criteria, dimension_scores, rationale,
// scoring_preset and scoring_context. It is immutable apart from a cache, and
// safe for concurrent use.
type PlanValidator struct {
	id      string
	base    planScoring
	catalog *scoring.Catalog
	target  string
	judge   judge
	others  sync.Map // context name → planScoring
}

type planScoring struct {
	calc     *scoring.Calculator
	preset   *scoring.Preset
	criteria *criteria
}

func newPlanScoring(calc *scoring.Calculator) planScoring {
	p := calc.Preset()
	return planScoring{calc: calc, preset: p, criteria: newCriteria(p.Keys())}
}

var (
	_ agents.Agent     = (*PlanValidator)(nil)
	_ agents.ModelUser = (*PlanValidator)(nil)
)

// Models names the model the validator asks, as its calls are priced
// ([agents.ModelUser]).
func (v *PlanValidator) Models() []string { return v.judge.models() }

// NewPlanValidator builds a plan_validator.
func NewPlanValidator(c PlanConfig) (*PlanValidator, error) {
	if c.Calculator == nil {
		return nil, errors.New("plan_validator needs a calculator")
	}
	j, err := newJudge(c.ID, c.ModelConfig)
	if err != nil {
		return nil, err
	}
	return &PlanValidator{id: c.ID, base: newPlanScoring(c.Calculator), catalog: c.Catalog, target: c.Target, judge: j}, nil
}

// Run evaluates the proposed plan. When the model cannot be asked, every
// criterion fails, overall_assessment is ERROR and error holds the message;
// Run fails only when ctx is done.
func (v *PlanValidator) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	ps := v.scoringFor(in)
	text := v.prompt(in, ps.preset)
	reply, usage, err := v.judge.ask(ctx, in, text)
	if err != nil {
		if ctx.Err() != nil {
			return agents.Output{Prompt: text, Usage: usage}, err
		}
		warn(in, v.id, "validation failed, every criterion counts as failed: %v", err)
		f := v.fields(ps, ps.criteria.empty())
		f["overall_assessment"] = AssessmentError
		f["rationale"] = "validation failed: " + err.Error()
		f["error"] = err.Error()
		return output(f, text, usage), nil
	}
	ev, how := ps.criteria.parse(reply)
	if how == ParsedNone {
		warn(in, v.id, "the model's answer holds no verdicts, every criterion counts as failed: %q", fault.Truncate(reply, 80))
	}
	f := v.fields(ps, ev)
	f["rationale"] = rationale(reply)
	return output(f, text, usage), nil
}

// scoringFor picks the calculator: the iteration's scoring_context, when the
// catalog knows it and has this level, else the configured one.
func (v *PlanValidator) scoringFor(in agents.Input) planScoring {
	if v.catalog == nil {
		return v.base
	}
	m, _ := in.Value.(map[string]any)
	name, _ := m["scoring_context"].(string)
	if name == "" {
		return v.base
	}
	x, err := v.catalog.Context(name)
	if err != nil || x.Name == v.base.preset.Context {
		return v.base
	}
	if ps, ok := v.others.Load(x.Name); ok {
		return ps.(planScoring)
	}
	calc, err := v.catalog.Calculator(x.Name, v.base.preset.Level, nil)
	if err != nil {
		return v.base
	}
	ps, _ := v.others.LoadOrStore(x.Name, newPlanScoring(calc))
	return ps.(planScoring)
}

func (v *PlanValidator) fields(ps planScoring, ev map[string]map[string]bool) map[string]any {
	e := ps.calc.Evaluate(evalsValue(ev))
	breakdown := make(map[string]any, len(e.Criteria))
	for _, c := range e.Criteria {
		breakdown[c.Key] = map[string]any{"weight": c.Weight, "passed": c.Passed}
	}
	dims := make(map[string]any, len(e.Dimensions))
	for _, d := range e.Dimensions {
		dims[d.Dimension] = map[string]any{"score": d.Score, "max_score": d.Max, "percentage": d.Percentage,
			"passed": d.Passed, "total": d.Total}
	}
	return map[string]any{
		"validation_score":    e.Score,
		"overall_assessment":  e.Assessment,
		"boolean_evaluations": evalsValue(ev),
		"breakdown":           breakdown,
		"passed_criteria":     values.List(e.Passed),
		"failed_criteria":     values.List(e.Failed),
		"dimension_scores":    dims,
		"scoring_preset":      ps.preset.Level,
		"scoring_context":     ps.preset.Context,
	}
}

// plan finds the proposed plan among the outputs already run.
func (v *PlanValidator) plan(in agents.Input) string {
	if v.target != "" {
		if o, ok := in.Previous.Get(v.target); ok {
			return outputContent(o)
		}
		warn(in, v.id, "evaluation_target %q has no output here (no agent of that id ran before this validator); looking for the plan elsewhere", v.target)
	}
	for _, id := range planSources {
		if o, ok := in.Previous.Get(id); ok && !o.Failed() {
			return outputContent(o)
		}
	}
	var withPath, last *agents.Output
	in.Previous.Each(func(id string, o agents.Output) bool {
		if o.Failed() {
			return true
		}
		last = &o
		resp, _ := o.Response.(map[string]any)
		for _, k := range []string{"decision_type", "target", "path"} {
			_, inFields := o.Fields[k]
			_, inResp := resp[k]
			if inFields || inResp {
				withPath = &o
			}
		}
		return true
	})
	switch {
	case withPath != nil:
		return outputContent(*withPath)
	case last != nil:
		return outputContent(*last)
	}
	return "(no proposed plan was found: no agent ran before this validator)"
}

func (v *PlanValidator) prompt(in agents.Input, p *scoring.Preset) string {
	var b strings.Builder
	heading(&b, "the proposed plan below", p)
	b.WriteString("\nRequest:\n")
	b.WriteString(fault.Truncate(taskText(in.Value), maxContent))
	b.WriteString("\n\nProposed plan:\n")
	b.WriteString(v.plan(in))
	b.WriteString("\n")
	writeHistory(&b, in)
	b.WriteString("\n")
	writeCriteria(&b, p)
	writeAnswerForm(&b, p, `"rationale": "one or two sentences on the plan's main weaknesses"`)
	return b.String()
}

// taskText is the request: the workflow input, unwrapped from a loop
// iteration's {input: ...} mapping.
func taskText(v any) string {
	if m, ok := v.(map[string]any); ok {
		if inner, ok := m["input"]; ok {
			v = inner
		}
	}
	return agents.Text(v)
}
