package loopnode

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/cognition/metrics"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/prompt"
	"go.yaml.in/yaml/v3"
)

// Condition kinds (stop_when entries) and the stop reasons they give.
const (
	condScore         = "score"
	condEvaluator     = "evaluator"
	condStable        = "stable_output"
	condWhile         = "while"
	condUntil         = "until"
	condContinueWhile = "continue_while"
	condStagnation    = "stagnation"
	condAny           = "any"
	condAll           = "all"

	StopEvaluatorDone = "evaluator_done"
	StopStableOutput  = "stable_output"
	StopCondition     = "condition"
	StopStagnation    = "stagnation"
)

var condKinds = []string{condScore, condEvaluator, condStable, condWhile, condUntil, condContinueWhile, condStagnation, condAny, condAll}

var operators = []string{"==", "!=", "<", ">", "<=", ">="}

// condition is one node of a stop_when tree.
type condition struct {
	kind   string
	before bool // check: before — evaluated before each iteration

	children []*condition // any, all

	threshold float64 // score, stable_output
	agent     string  // evaluator, stable_output's of

	expr    *prompt.Expr         // while, until
	strict  *prompt.Expr         // the same, an undefined lookup an error (evalExpr)
	defines func(id string) bool // the agent ids of the internal workflow, when it can tell
	exprPos load.Pos             // where the expression is written

	output   string // continue_while: "agent.field"
	operator string
	value    any

	repeats        int // stagnation
	minImprovement float64
	rounds         int

	ref    string   // the agent id the condition reads, checked at load
	refPos load.Pos // where that id is written
	pos    load.Pos // where the condition is written
}

// condResult is what one condition said about one iteration; iteration events
// carry every result.
type condResult struct {
	Kind   string `json:"kind"`
	Fired  bool   `json:"fired"`
	Detail string `json:"detail,omitempty"`
}

func (r condResult) Map() map[string]any {
	m := map[string]any{"kind": r.Kind, "fired": r.Fired}
	if r.Detail != "" {
		m["detail"] = r.Detail
	}
	return m
}

// reason is the stop reason a fired condition gives.
func (c *condition) reason() string {
	switch c.kind {
	case condScore:
		return StopThreshold
	case condEvaluator:
		return StopEvaluatorDone
	case condStable:
		return StopStableOutput
	case condStagnation:
		return StopStagnation
	}
	return StopCondition
}

// readStopWhen reads stop_when: a list (any of it), {any: [...]} or {all: [...]}.
func readStopWhen(c *load.Config, threshold float64) *condition {
	n := c.Node("stop_when")
	if n == nil {
		return nil
	}
	p := condParser{file: c.File(), probs: c.Problems(), what: c.What() + ": stop_when", threshold: threshold}
	if n.Kind == yaml.SequenceNode {
		return p.group(condAny, n)
	}
	return p.parse(n, 0)
}

type condParser struct {
	file      string
	probs     *load.Problems
	what      string
	threshold float64
}

func (p condParser) pos(n *yaml.Node) load.Pos {
	return load.Pos{File: p.file, Line: n.Line, Col: n.Column}
}

func (p condParser) group(kind string, n *yaml.Node) *condition {
	g := &condition{kind: kind}
	n = load.Resolve(n)
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.probs.Errorf(p.pos(n), "%s: %s needs a non-empty list of conditions", p.what, kind)
		return nil
	}
	for _, item := range n.Content {
		if child := p.parse(item, 1); child != nil {
			g.children = append(g.children, child)
		}
	}
	if kind == condAll {
		phases := map[bool]bool{}
		for _, ch := range g.children {
			phases[ch.before] = true
		}
		if len(phases) > 1 {
			p.probs.Errorf(p.pos(n), "%s: all mixes check: before and check: after conditions, which can never hold together; split them", p.what)
		}
	}
	g.before = len(g.children) > 0 && g.children[0].before
	for _, ch := range g.children {
		g.before = g.before && ch.before
	}
	return g
}

// parse reads one condition: "score", or a mapping with one kind key (and check).
func (p condParser) parse(n *yaml.Node, depth int) *condition {
	n = load.Resolve(n)
	if depth > 16 {
		p.probs.Errorf(p.pos(n), "%s: conditions nest more than 16 deep", p.what)
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		if n.Value == condScore {
			return &condition{kind: condScore, threshold: p.threshold}
		}
		p.probs.Errorf(p.pos(n), "%s: %q is not a condition; write score, or a mapping with one of: %s", p.what, n.Value, strings.Join(condKinds, ", "))
		return nil
	}
	c := load.NewConfig(p.file, n, p.what, p.probs)
	kind := kindOf(c)
	cond := &condition{kind: kind, pos: p.pos(n)}
	switch check := c.String("check", "after"); check {
	case "after":
	case "before":
		cond.before = true
	default:
		c.Errorf("check", "check must be before or after, not %q", check)
	}
	v := c.Node(kind)
	if kind == condAny || kind == condAll {
		g := p.group(kind, v)
		c.Done()
		if g != nil && c.Has("check") {
			c.Errorf("check", "check goes on the conditions inside %s, not on the group", kind)
		}
		return g
	}
	if !p.leaf(c, kind, v, cond) {
		return nil
	}
	if cond.before && kind != condWhile && kind != condUntil && kind != condContinueWhile {
		c.Errorf("check", "check: before works with while, until and continue_while; %s needs an iteration to judge", kind)
	}
	c.Done()
	return cond
}

// kindOf is the one key of a condition mapping besides check; several are
// an error.
func kindOf(c *load.Config) string {
	var kind string
	for _, k := range c.Keys() {
		if k == "check" {
			continue
		}
		if kind != "" {
			c.Errorf(k, "a condition has one kind, found %s and %s; wrap several in any: or all:", kind, k)
			continue
		}
		kind = k
	}
	return kind
}

// leaf reads a condition of one kind (v is its value) into cond; false for
// an empty or unknown kind.
func (p condParser) leaf(c *load.Config, kind string, v *yaml.Node, cond *condition) bool {
	switch kind {
	case condScore:
		cond.threshold = p.threshold
		if sc := c.Map(condScore); sc != nil {
			cond.threshold = sc.Float("threshold", p.threshold, 0, 1)
			sc.Done()
		}
	case condEvaluator:
		cond.agent = c.String(condEvaluator, "")
		cond.ref, cond.refPos = cond.agent, c.ValuePos(condEvaluator)
		if cond.agent == "" {
			c.Errorf(kind, "evaluator names the agent whose answer decides: done or continue")
		}
	case condStable:
		p.stableOutput(c, cond)
	case condWhile, condUntil:
		cond.expr = p.expr(c, kind, v)
		if cond.expr != nil {
			cond.strict, _ = prompt.ParseExpr(c.What()+" "+kind, v.Value, prompt.Options{Strict: true})
		}
		if v != nil {
			cond.exprPos = p.pos(v)
		}
	case condContinueWhile:
		p.continueWhile(c, cond)
	case condStagnation:
		p.stagnation(c, cond)
	case "":
		c.Errorf("", "empty condition; use one of: %s", strings.Join(condKinds, ", "))
		return false
	default:
		c.Errorf(kind, "unknown condition %q (known: %s)", kind, strings.Join(condKinds, ", "))
		c.Accept(kind)
		c.Done()
		return false
	}
	return true
}

func (p condParser) expr(c *load.Config, kind string, v *yaml.Node) *prompt.Expr {
	if v == nil || v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
		c.Errorf(kind, "%s needs an expression, e.g. \"previous_outputs.review.approved == false\"", kind)
		return nil
	}
	e, err := prompt.ParseExpr(c.What()+" "+kind, v.Value, prompt.Options{})
	if err != nil {
		var se *prompt.SyntaxError
		if errors.As(err, &se) && se.Line == 1 {
			col := v.Column + se.Col - 1
			if v.Style == yaml.DoubleQuotedStyle || v.Style == yaml.SingleQuotedStyle {
				col++
			}
			p.probs.Errorf(load.Pos{File: p.file, Line: v.Line, Col: col}, "%s: %s: %s", c.What(), kind, se.Msg)
		} else {
			p.probs.Errorf(p.pos(v), "%s: %s: %v", c.What(), kind, err)
		}
		return nil
	}
	return e
}

func (p condParser) stableOutput(c *load.Config, cond *condition) {
	sc := c.Map(condStable)
	if sc == nil {
		c.Errorf(condStable, "stable_output needs {threshold, of: <agent id>}")
		return
	}
	cond.threshold = sc.Float("threshold", 0.95, 0, 1)
	cond.agent = sc.String("of", "")
	cond.ref, cond.refPos = cond.agent, sc.ValuePos("of")
	if cond.agent == "" {
		sc.Errorf("", "stable_output needs of: the agent whose consecutive outputs are compared")
	}
	sc.Done()
}

func (p condParser) stagnation(c *load.Config, cond *condition) {
	sc := c.Map(condStagnation)
	if sc == nil {
		c.Errorf(condStagnation, "stagnation needs {repeats: K} and/or {min_improvement: ε, rounds: K}")
		return
	}
	cond.repeats = sc.Int("repeats", 0, 2, 1000)
	cond.minImprovement = sc.Float("min_improvement", 0, 0, 1)
	cond.rounds = sc.Int("rounds", 0, 1, 1000)
	if sc.Has("min_improvement") != sc.Has("rounds") {
		sc.Errorf("", "min_improvement and rounds go together: stop when the best score improved less than min_improvement over the last rounds iterations")
	}
	if cond.repeats == 0 && cond.rounds == 0 {
		sc.Errorf("", "stagnation needs repeats, or min_improvement with rounds")
	}
	sc.Done()
}

func (p condParser) continueWhile(c *load.Config, cond *condition) {
	sc := c.Map(condContinueWhile)
	if sc == nil {
		c.Errorf(condContinueWhile, "continue_while needs {output: agent.field, operator, value}")
		return
	}
	cond.output = sc.String("output", "")
	cond.ref, _, _ = strings.Cut(cond.output, ".")
	cond.refPos = sc.ValuePos("output")
	if !strings.Contains(cond.output, ".") {
		sc.Errorf("output", "output names an agent and a field, e.g. review.approved, not %q", cond.output)
	}
	cond.operator = sc.String("operator", "==")
	known := false
	for _, op := range operators {
		known = known || op == cond.operator
	}
	if !known {
		sc.Errorf("operator", "operator must be one of %s, not %q", strings.Join(operators, " "), cond.operator)
	}
	if !sc.Has("value") {
		sc.Errorf("", "continue_while needs value: what output is compared with")
	}
	sc.Decode("value", &cond.value)
	sc.Done()
}

// condEnv is what conditions judge: the iteration just run (or, before an
// iteration, the one before it).
type condEnv struct {
	outputs   *agents.Outputs
	data      prompt.Data
	score     float64
	st        *state
	evaluated bool // an iteration has run (false before the first)
}

// eval reports whether c fires, appending every leaf's result to rs. Leaves of
// the other phase do not fire. A leaf that cannot be evaluated is an error (it
// is never "not fired"): the error names the condition and its position.
func (c *condition) eval(env *condEnv, before bool, rs *[]condResult) (bool, string, error) {
	switch c.kind {
	case condAny, condAll:
		fired, reason := c.kind == condAll, ""
		for _, ch := range c.children {
			ok, r, err := ch.eval(env, before, rs)
			if err != nil {
				return false, "", err
			}
			if ok && reason == "" {
				reason = r
			}
			if c.kind == condAny {
				fired = fired || ok
			} else {
				fired = fired && ok
			}
		}
		if !fired {
			reason = ""
		}
		return fired, reason, nil
	}
	if c.before != before {
		return false, "", nil
	}
	fired, detail, err := c.leaf(env)
	if err != nil {
		*rs = append(*rs, condResult{Kind: c.kind, Detail: "error: " + err.Error()})
		return false, "", err
	}
	*rs = append(*rs, condResult{Kind: c.kind, Fired: fired, Detail: detail})
	if fired {
		return true, c.reason(), nil
	}
	return false, "", nil
}

// leaf evaluates one condition; an error says why it cannot be evaluated.
func (c *condition) leaf(env *condEnv) (bool, string, error) {
	if c.kind == condWhile || c.kind == condUntil {
		return c.evalExpr(env)
	}
	return c.judge(env)
}

// cannot is the error of a condition that cannot be evaluated: it names the
// condition, where it is written and why.
func (c *condition) cannot(format string, args ...any) error {
	what, pos := c.kind, c.pos
	switch c.kind {
	case condWhile, condUntil:
		what, pos = fmt.Sprintf("%s %q", c.kind, c.expr.Source()), c.exprPos
	case condEvaluator:
		what += " " + c.agent
	case condContinueWhile:
		what += " " + c.output
	}
	return fmt.Errorf("stop_when %s at %s cannot be evaluated: %s", what, pos, fmt.Sprintf(format, args...))
}

// evalExpr evaluates a while or until expression. An undefined name or an
// evaluation error (a method of an undefined value, a bad operand) is an error
// naming the condition, its position and the cause.
func (c *condition) evalExpr(env *condEnv) (bool, string, error) {
	if c.expr == nil {
		return false, "", nil
	}
	if undef := c.expr.Undefined(env.data); len(undef) > 0 {
		return false, "", c.cannot("%s not defined%s", quoteList(undef), suggest(undef[0], env.data))
	}
	v, err := c.evalStrict(env)
	if err != nil {
		var re *prompt.RenderError
		if errors.As(err, &re) && re.Err != nil {
			return false, "", c.cannot("%s", re.Message())
		}
		return false, "", c.cannot("%v", err)
	}
	truth := prompt.Truthy(v)
	if c.kind == condWhile {
		return !truth, fmt.Sprintf("%s is %t", c.expr.Source(), truth), nil
	}
	return truth, fmt.Sprintf("%s is %t", c.expr.Source(), truth), nil
}

// suggest names the variable closest to name among those d defines, or lists
// what conditions see.
func suggest(name string, d prompt.Data) string {
	names := []string{"input", "previous_outputs", "loop_number"}
	for k := range d.Vars {
		names = append(names, k)
	}
	if best := load.Closest(name, names); best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return " (a condition sees input, previous_outputs, loop_number, score, best_score, past_loops, the loop variables and input mappings)"
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return "name " + q[0] + " is"
	}
	return "names " + strings.Join(q, ", ") + " are"
}

// judge evaluates a condition that is not an expression. An agent the
// condition reads that did not run in the pass, or a field its output lacks,
// is an error; an agent that failed does not fire (the error policy judges it).
func (c *condition) judge(env *condEnv) (bool, string, error) {
	switch c.kind {
	case condScore:
		return env.score >= c.threshold, fmt.Sprintf("score %g, threshold %g", env.score, c.threshold), nil
	case condEvaluator:
		o, ok := env.outputs.Get(c.agent)
		if !ok {
			return false, "", c.cannot("%q did not run in this pass", c.agent)
		}
		v := verdict(o)
		return v == "done", fmt.Sprintf("%s said %q", c.agent, v), nil
	case condStable:
		fired, detail := c.stable(env)
		return fired, detail, nil
	case condContinueWhile:
		agent, field, _ := strings.Cut(c.output, ".")
		o, ok := env.outputs.Get(agent)
		switch {
		case !ok && !env.evaluated:
			return false, "no iteration yet", nil
		case !ok:
			return false, "", c.cannot("%q did not run in this pass", agent)
		case o.Failed():
			return false, fmt.Sprintf("%s failed", agent), nil
		}
		got, found := fieldOf(o, field)
		if !found {
			return false, "", c.cannot("the output of %q has no field %q (its response: %q)", agent, field, fault.Truncate(agents.Text(o.Response), 120))
		}
		holds := compare(got, c.operator, c.value)
		return !holds, fmt.Sprintf("%s = %s, %s %s %s is %t", c.output, agents.Text(got), agents.Text(got), c.operator, agents.Text(c.value), holds), nil
	case condStagnation:
		fired, detail := c.stagnant(env)
		return fired, detail, nil
	}
	return false, "", nil
}

// verdict reads an evaluator's decision: a router's route, a boolean (true is
// done), or the first word of its answer, lower-cased.
func verdict(o agents.Output) string {
	if o.Failed() {
		return "error"
	}
	for _, k := range []string{"route", "selectedBranch", "selected_branch"} {
		if s, ok := o.Fields[k].(string); ok && s != "" {
			return strings.ToLower(strings.TrimSpace(s))
		}
	}
	switch v := o.Response.(type) {
	case bool:
		if v {
			return "done"
		}
		return "continue"
	case string:
		f := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r == '_')
		})
		if len(f) > 0 {
			return f[0]
		}
	}
	return ""
}

// fieldOf reads field of an output: an output field, else a key of a mapping
// response, else a key of a JSON object in the response text.
func fieldOf(o agents.Output, field string) (any, bool) {
	m := o.Map()
	if v, ok := m[field]; ok {
		return v, true
	}
	if obj := responseObject(o); obj != nil {
		v, ok := obj[field]
		return v, ok
	}
	return nil, false
}

// responseObject is the response as a mapping: itself, or the JSON object its text holds.
func responseObject(o agents.Output) map[string]any {
	switch r := o.Response.(type) {
	case map[string]any:
		return r
	case string:
		s := strings.TrimSpace(r)
		if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
			var obj map[string]any
			if json.Unmarshal([]byte(s[i:j+1]), &obj) == nil {
				return obj
			}
		}
	}
	return nil
}

// compare applies op to a and b: numbers as numbers (a text that is one
// number, "10" or " 2.5e3 ", counts as that number, so "10" < 9 is false),
// anything else as text (equality only makes sense there; ordering compares
// the texts).
func compare(a any, op string, b any) bool {
	fa, aNum := pyvalue.Finite(a)
	fb, bNum := pyvalue.Finite(b)
	if aNum && bNum {
		switch op {
		case "==":
			return fa == fb
		case "!=":
			return fa != fb
		case "<":
			return fa < fb
		case ">":
			return fa > fb
		case "<=":
			return fa <= fb
		case ">=":
			return fa >= fb
		}
	}
	sa, sb := comparable(a), comparable(b)
	switch op {
	case "==":
		return sa == sb
	case "!=":
		return sa != sb
	case "<":
		return sa < sb
	case ">":
		return sa > sb
	case "<=":
		return sa <= sb
	case ">=":
		return sa >= sb
	}
	return false
}

// comparable is a value's comparison text: booleans and strings case-folded
// ("False" equals false), other values as compact JSON.
func comparable(v any) string {
	switch x := v.(type) {
	case string:
		return strings.ToLower(strings.TrimSpace(x))
	case bool:
		if x {
			return "true"
		}
		return "false"
	case nil:
		return "null"
	}
	return agents.Text(v)
}

// stable compares this iteration's output of c.agent with the previous one.
func (c *condition) stable(env *condEnv) (bool, string) {
	o, ok := env.outputs.Get(c.agent)
	if !ok {
		return false, fmt.Sprintf("no output from %q", c.agent)
	}
	cur := stableText(o)
	prev, had := env.st.stablePrev[c.agent]
	if env.st.stableNext == nil {
		env.st.stableNext = map[string]string{}
	}
	env.st.stableNext[c.agent] = cur
	if !had {
		return false, "first output"
	}
	sim := metrics.Similarity(prev, cur, c.threshold)
	if sim < c.threshold-Tolerance {
		return false, fmt.Sprintf("similarity below %g", c.threshold)
	}
	return true, fmt.Sprintf("similarity %.4f, threshold %g", sim, c.threshold)
}

// stableText is an output as compared text: the response as is when it is text,
// else compact JSON with sorted keys (encoding/json sorts map keys).
func stableText(o agents.Output) string {
	if s, ok := o.Response.(string); ok {
		return s
	}
	b, err := json.Marshal(o.Response)
	if err != nil {
		return agents.Text(o.Response)
	}
	return string(b)
}

// Tolerance is the float tolerance of the loop's comparisons of computed
// numbers: stagnation's improvement and stable_output's similarity count as
// reaching their bound when they fall short of it by at most 1e-9, so float
// rounding never decides (a steady +0.1 over 3 rounds is an improvement of 0.3,
// though 0.7-0.4 is 0.29999999999999993 in float64).
const Tolerance = 1e-9

// recordPass keeps what stagnation compares of a pass: its normalised answer
// and the best score after it. A pass in which an agent failed is left out: its
// (empty or error) answer and unchanged best say nothing about progress, so an
// agent failing every call never reads as stagnation.
// The answer is hashed only when hash is set (a condition compares answers);
// otherwise the pass keeps an empty key.
func recordPass(st *state, failed, hash bool, answer any) {
	if failed {
		return
	}
	key := ""
	if hash {
		key = answerKey(answer)
	}
	st.answers = append(st.answers, key)
	st.bests = append(st.bests, st.best)
}

// stagnant: the same normalised answer K times in a row, or the best score
// improved less than ε (with [Tolerance]) over the last K iterations; passes
// with a failed agent are not counted (see recordPass).
func (c *condition) stagnant(env *condEnv) (bool, string) {
	answers, bests := env.st.answers, env.st.bests
	if c.repeats > 0 && len(answers) >= c.repeats {
		last := answers[len(answers)-1]
		same := true
		for _, a := range answers[len(answers)-c.repeats:] {
			same = same && a == last
		}
		if same {
			return true, fmt.Sprintf("the same answer %d times in a row", c.repeats)
		}
	}
	if c.rounds > 0 && len(bests) > c.rounds {
		gain := bests[len(bests)-1] - bests[len(bests)-1-c.rounds]
		if gain < c.minImprovement-Tolerance {
			return true, fmt.Sprintf("best score improved %.4f over %d rounds, less than %g", gain, c.rounds, c.minImprovement)
		}
		return false, fmt.Sprintf("best score improved %.4f over %d rounds", gain, c.rounds)
	}
	return false, ""
}

// normalizeAnswer folds whitespace and case, for stagnation's "same answer".
func normalizeAnswer(v any) string {
	return strings.ToLower(strings.Join(strings.Fields(agents.Text(v)), " "))
}

// comparesAnswers reports whether the tree has a stagnation leaf with
// repeats, the only reader of the passes' answers. A nil tree has none.
func (c *condition) comparesAnswers() bool {
	if c == nil {
		return false
	}
	if c.kind == condStagnation && c.repeats > 0 {
		return true
	}
	for _, ch := range c.children {
		if ch.comparesAnswers() {
			return true
		}
	}
	return false
}

// hasBefore reports whether any leaf is checked before iterations.
func (c *condition) hasBefore() bool {
	if c.kind == condAny || c.kind == condAll {
		for _, ch := range c.children {
			if ch.hasBefore() {
				return true
			}
		}
		return false
	}
	return c.before
}

// refs calls fn for every agent id the tree reads.
func (c *condition) refs(fn func(id string, pos load.Pos)) {
	if c == nil {
		return
	}
	if c.ref != "" {
		fn(c.ref, c.refPos)
	}
	for _, ch := range c.children {
		ch.refs(fn)
	}
}
