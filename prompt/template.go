package prompt

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// Options tune how templates parse and render.
type Options struct {
	// Strict makes undefined names and attributes an error at render time
	// instead of "".
	Strict bool
	// MaxOutput caps the rendered prompt and any single value the template
	// builds, in bytes. Zero means DefaultMaxOutput.
	MaxOutput int
}

// Template is a parsed template: parsed once at load time, rendered once per call,
// safe for concurrent use.
type Template struct {
	name, src string
	maxOut    int
	an        analysis // the names it reads, computed on first use (names.go)
	walked    []any    // the rewritten tree's nodes in walk order, until an is computed

	plain bool   // no tags: the output is text
	text  string // plain output

	tpl        *exec.Template // gonja's template object (empty), which the renderer needs
	root       *nodes.Template
	cfg        *config.Config
	env        *exec.Environment // filters, tests, methods, globals, this template's tags
	loader     *sourceLoader
	single     *outputNode  // set when the template is exactly one {{ expression }}
	plan       []planNode   // the template without gonja's renderer (plan.go); nil when not planned
	planSingle *planExpr    // single's expression, when the template is planned
	hint       atomic.Int64 // initial output buffer size (a hint, updated by renders)
	warns      []Warning
	checked    checkedTwin // the same source parsed strict, for RenderChecked (missingkey.go)
}

// Warnings lists what parses but is doubtful (see [Warning]); loaders report
// them as load warnings.
func (t *Template) Warnings() []Warning { return append([]Warning(nil), t.warns...) }

// rootID is the identifier gonja knows every template by; names are ours.
const rootID = "prompt"

// Parse parses src. A template that does not parse returns a *SyntaxError with
// the position of the problem; a template too large or nested too deeply returns
// an error wrapping ErrLimit or a *SyntaxError.
func Parse(name, src string, opts Options) (t *Template, err error) {
	var ps *parseState
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, panicError("parse", name, r)
			if ps != nil {
				// gonja's parser panics on some truncated input (it reads past
				// the end); report it as a syntax error at the end.
				err = ps.errAt(len(ps.src), fmt.Sprintf("malformed template: the parser failed (%v)", r))
			}
		}
	}()
	if len(src) > MaxTemplateBytes {
		return nil, fmt.Errorf("parse template %q: %w: source is %d bytes (limit %d)", name, ErrLimit, len(src), MaxTemplateBytes)
	}
	env := sharedEnv()
	silenceGonja()
	t = &Template{name: name, src: src, maxOut: opts.MaxOutput}
	if t.maxOut <= 0 {
		t.maxOut = DefaultMaxOutput
	}
	norm := normalize(src)
	if !strings.Contains(norm, "{{") && !strings.Contains(norm, "{%") && !strings.Contains(norm, "{#") {
		t.plain, t.text = true, norm
		return t, nil
	}

	ps = &parseState{name: name, src: norm}
	cfg := env.config(opts.Strict)
	if se := ps.prelex(cfg); se != nil {
		return nil, se
	}
	t.env = &exec.Environment{
		Context: env.globals,
		Filters: env.filters,
		Tests:   env.tests,
		Methods: env.methods,
	}
	if se := ps.decodeStrings(ps.toks); se != nil {
		return nil, se
	}
	// gonja parses our token stream (Jinja's string escapes and conditional
	// expressions, see pystring.go and condexpr.go); its template object, which
	// the renderer needs, is built from an empty source.
	toks := rewriteConditionals(ps.toks)
	t.env.ControlStructures = env.tagSet(ps, toks)
	t.loader = env.loader
	root, err := parser.NewParser(rootID, tokens.NewStream(toks), cfg, t.loader, t.env.ControlStructures).Parse()
	if err != nil {
		return nil, ps.syntaxError(err)
	}
	t.compile(ps, root, cfg, opts.Strict)
	t.tpl, t.root, t.cfg, t.warns = env.tpl, root, cfg, ps.warnings
	t.hint.Store(int64(len(norm) + len(norm)/2 + 64))
	return t, nil
}

// compile prepares gonja's parsed tree for rendering: the sandbox's rewrite,
// then the shortcuts (the single expression, the plan).
func (t *Template) compile(ps *parseState, root *nodes.Template, cfg *config.Config, strict bool) {
	if out := singleExpression(root); out != nil {
		t.single = &outputNode{n: out}
		ps.compilers = append(ps.compilers, t.single)
	}
	t.walked = rewrite(root, ps, strict)
	if plan, ok := compilePlan(root.Nodes); ok && !cfg.AutoEscape {
		t.plan = plan
		if t.single != nil && t.single.n.Condition == nil {
			t.planSingle = compileExpr(t.single.n.Expression)
		}
	}
}

// singleExpression returns the output tag of a template that is exactly one
// {{ expression }} with only whitespace around it.
func singleExpression(root *nodes.Template) *nodes.Output {
	var out *nodes.Output
	for _, n := range root.Nodes {
		switch x := n.(type) {
		case *nodes.Output:
			if out != nil {
				return nil
			}
			out = x
		case *nodes.Data:
			if strings.TrimSpace(x.Data.Val) != "" {
				return nil
			}
		default:
			return nil
		}
	}
	return out
}

// Name is the name the template was parsed with.
func (t *Template) Name() string { return t.name }

// Plain reports whether the template has no tags: it renders to its text
// whatever the data.
func (t *Template) Plain() bool { return t.plain }

// Source is the template text.
func (t *Template) Source() string { return t.src }

// Render renders the template with d. It reads only d and never renders values
// from d as templates.
func (t *Template) Render(d Data) (string, error) {
	if t.plain {
		return t.text, nil
	}
	return t.render(d)
}

func (t *Template) render(d Data) (out string, err error) {
	if t.plan != nil {
		if out, ok := t.runPlan(d); ok {
			t.noteSize(len(out))
			return out, nil
		}
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = "", panicError("render", t.name, r)
		}
	}()
	f := t.frame(d)
	f.w.b.Grow(min(int(t.hint.Load()), t.maxOut))
	if err := f.r.Execute(); err != nil {
		return "", renderError(t.name, err)
	}
	out = f.w.b.String()
	t.noteSize(len(out))
	return out, nil
}

// noteSize updates the size hint for the next render's buffer.
func (t *Template) noteSize(n int) {
	if n += n / 8; n > int(t.hint.Load()) {
		t.hint.Store(int64(n))
	}
}

// Eval renders a template that is a single expression to the expression's value
// (a number stays a number, a list a []any, a mapping a map; None and undefined
// are nil); any other template renders to its string.
func (t *Template) Eval(d Data) (v any, err error) {
	if t.single == nil {
		return t.Render(d)
	}
	if t.planSingle != nil {
		if v, ok := t.evalPlan(d); ok {
			return v, nil
		}
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, panicError("render", t.name, r)
		}
	}()
	f := t.frame(d)
	val, err := t.single.eval(&f.r)
	if err != nil {
		return nil, renderError(t.name, &lineError{line: t.single.n.Start.Line, err: err})
	}
	if val == nil {
		return nil, nil
	}
	return goValue(val), nil
}

// frame builds one call's render state, output, context and renderer: this
// call's variables on top of the shared globals.
func (t *Template) frame(d Data) *frame {
	f := &frame{}
	f.st = renderState{d: d, maxOut: t.maxOut, maxWork: workFactor * t.maxOut, ev: &f.ev}
	f.w.st = &f.st
	ctx := t.env.Context.Inherit()
	bind(ctx, &f.st.d, &f.st)
	f.env = exec.Environment{
		Context:           ctx,
		Filters:           t.env.Filters,
		Tests:             t.env.Tests,
		ControlStructures: t.env.ControlStructures,
		Methods:           t.env.Methods,
	}
	// gonja's NewRenderer also copies the config (ours is never changed: the
	// autoescape tag changes a copy) and binds "self" to the template's blocks
	// (there are none: {% block %} is not allowed).
	f.r = exec.Renderer{Config: t.cfg, Environment: &f.env, Loader: t.loader, Template: t.tpl, RootNode: t.root, Output: &f.w}
	f.ev = exec.Evaluator{Config: t.cfg, Environment: &f.env, Loader: t.loader}
	return f
}

// Expr is a parsed bare Jinja expression, such as a loop's
// while: "previous_outputs.review.approved == false". Safe for concurrent use.
type Expr struct {
	t   *Template
	src string
}

// ParseExpr parses src as one Jinja expression (without {{ }}). Errors are
// *SyntaxError with positions relative to src.
func ParseExpr(name, src string, opts Options) (*Expr, error) {
	const open = "{{ "
	t, err := Parse(name, open+src+" }}", opts)
	if err != nil {
		if se, ok := errors.AsType[*SyntaxError](err); ok {
			if se.Line == 1 {
				se.Col -= len(open)
			}
			// past the end: the error is at the end of the expression
			lines := strings.Split(src, "\n")
			if se.Line > len(lines) {
				se.Line = len(lines)
			}
			se.Col = max(min(se.Col, utf8.RuneCountInString(lines[se.Line-1])+1), 1)
		}
		return nil, err
	}
	if t.single == nil {
		return nil, &SyntaxError{Name: name, Line: 1, Col: 1, Msg: "not a single expression"}
	}
	return &Expr{t: t, src: src}, nil
}

// Source is the expression text.
func (e *Expr) Source() string { return e.src }

// Eval evaluates the expression with d to its value (see [Template.Eval]).
// Use [Truthy] to read it as a condition.
func (e *Expr) Eval(d Data) (any, error) { return e.t.Eval(d) }
