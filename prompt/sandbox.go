package prompt

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/cogloop/cogloop/internal/pyvalue"
	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
	"github.com/nikolalohinski/gonja/v2/utils"
)

// wrapTag wraps one of gonja's control-structure parsers for one Parse call.
func (ps *parseState) wrapTag(name string, inner parser.ControlStructureParser) parser.ControlStructureParser {
	return func(p *parser.Parser, args *parser.Parser) (cs nodes.ControlStructure, err error) {
		start := ps.blockStart(p.Current())
		defer func() {
			if r := recover(); r != nil { // gonja's tag parsers panic on some malformed tags
				cs, err = nil, ps.errAt(start, fmt.Sprintf("malformed {%% %s %%} tag", name))
			}
		}()
		cs, err = inner(p, args)
		if err != nil {
			return nil, ps.annotate(err, name, start, p)
		}
		cs, serr := ps.harden(name, cs, start)
		if serr != nil {
			return nil, serr
		}
		ecs, ok := cs.(exec.ControlStructure)
		if !ok {
			return cs, nil
		}
		line, _ := ps.lineCol(start)
		return &located{inner: ecs, line: line}, nil
	}
}

// harden applies cogloop's restrictions to a freshly parsed control structure.
func (ps *parseState) harden(name string, cs nodes.ControlStructure, start int) (nodes.ControlStructure, *SyntaxError) {
	switch c := cs.(type) {
	case *controlStructures.ForControlStructure:
		if c.Recursive {
			return nil, ps.errAt(start, "recursive loops are not supported in cogloop prompts")
		}
		f := newForNode(c)
		if f.shadowsLoop() {
			line, col := ps.lineCol(start)
			ps.warnings = append(ps.warnings, Warning{Line: line, Col: col, Code: "loop_target",
				Msg: "'loop' as a for-loop target: Jinja2 rejects this template (\"Can't assign to special loop variable\") " +
					"and OrKa then sends the template text unrendered; cogloop renders it with loop as each item, " +
					"as the template means. Rename the variable (e.g. {% for past in ... %}) to run under both"})
		}
		ps.compilers = append(ps.compilers, f)
		return f, nil
	case *controlStructures.IfControlStructure:
		n := newIfNode(c)
		ps.compilers = append(ps.compilers, n)
		return n, nil
	case *controlStructures.MacroControlStructure:
		return &macroNode{inner: c}, nil
	case *controlStructures.SetControlStructure:
		return ps.hardenSet(c, start)
	}
	return cs, nil
}

// hardenSet allows {% set name = ... %}, {% set name %}...{% endset %} and
// {% set ns.attr = ... %} where ns is a namespace() (checked when rendering):
// templates must not change the data they were given.
func (ps *parseState) hardenSet(c *controlStructures.SetControlStructure, start int) (nodes.ControlStructure, *SyntaxError) {
	f := reflect.ValueOf(c).Elem().FieldByName("target")
	if !f.IsValid() || f.Kind() != reflect.Interface || f.IsNil() {
		return nil, ps.errAt(start, "unsupported {% set %} target")
	}
	target := f.Elem()
	switch target.Type() {
	case reflect.TypeFor[*nodes.Name]():
		return c, nil
	case reflect.TypeFor[*nodes.GetAttribute]():
		base := target.Elem().FieldByName("Node")
		attr := target.Elem().FieldByName("Attribute").String()
		if attr != "" && base.Kind() == reflect.Interface && !base.IsNil() && base.Elem().Type() == reflect.TypeFor[*nodes.Name]() {
			tok := base.Elem().Elem().FieldByName("Name")
			return &nsSetNode{inner: c, base: tok.Elem().FieldByName("Val").String()}, nil
		}
	}
	return nil, ps.errAt(start, "{% set %} may only assign a name or an attribute of a namespace() object")
}

// located remembers the template line of a control structure, for errors.
type located struct {
	inner exec.ControlStructure
	line  int
}

func (l *located) Position() *tokens.Token { return l.inner.Position() }
func (l *located) String() string          { return l.inner.String() }

func (l *located) Execute(r *exec.Renderer, tag *nodes.ControlStructureBlock) error {
	if err := l.inner.Execute(r, tag); err != nil {
		if _, ok := errors.AsType[*lineError](err); ok {
			return err
		}
		return &lineError{line: l.line, err: err}
	}
	return nil
}

// macroNode defines a macro whose calls count against the iteration budget and
// whose recursion depth is bounded.
type macroNode struct {
	inner *controlStructures.MacroControlStructure
}

func (m *macroNode) Position() *tokens.Token { return m.inner.Position() }
func (m *macroNode) String() string          { return m.inner.String() }

func (m *macroNode) Execute(r *exec.Renderer, tag *nodes.ControlStructureBlock) error {
	if err := m.inner.Execute(r, tag); err != nil {
		return err
	}
	name := m.inner.Name
	v, _ := r.Environment.Context.Get(name)
	fn, ok := v.(exec.Macro)
	st := rendererState(r)
	if !ok || st == nil {
		return nil
	}
	r.Environment.Context.Set(name, exec.Macro(func(params *exec.VarArgs) *exec.Value {
		if err := st.tick(); err != nil {
			return exec.AsValue(err)
		}
		st.depth++
		defer func() { st.depth-- }()
		if st.depth > MaxNesting {
			return exec.AsValue(fmt.Errorf("%w: macro %q nested more than %d calls deep", ErrLimit, name, MaxNesting))
		}
		return fn(params)
	}))
	return nil
}

// nsSetNode is {% set ns.attr = ... %}: allowed only when ns is a namespace().
type nsSetNode struct {
	inner *controlStructures.SetControlStructure
	base  string
}

func (n *nsSetNode) Position() *tokens.Token { return n.inner.Position() }
func (n *nsSetNode) String() string          { return n.inner.String() }

func (n *nsSetNode) Execute(r *exec.Renderer, tag *nodes.ControlStructureBlock) error {
	v, _ := r.Environment.Context.Get(n.base)
	if _, ok := v.(namespace); !ok {
		return fmt.Errorf("cannot assign an attribute of %q: only namespace() objects can be changed", n.base)
	}
	return n.inner.Execute(r, tag)
}

// outputNode renders {{ expression }}: Python formatting of values, output and
// work budgets, and the line of the tag in errors.
type outputNode struct {
	n                 *nodes.Output
	fast, fcond, falt *fastExpr
	ffast             *fastFiltered // the expression is path | filter(literals) | …
}

func (o *outputNode) compile() {
	o.fast = compileFast(o.n.Expression)
	o.fcond = compileFast(o.n.Condition)
	o.falt = compileFast(o.n.Alternative)
	o.ffast = compileFiltered(o.n.Expression)
}

func (o *outputNode) Position() *tokens.Token { return o.n.Start }
func (o *outputNode) String() string          { return o.n.String() }

func (o *outputNode) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	var s string
	if fv, ok := o.fastEval(r); ok {
		if w, isTop := r.Output.(*limitedWriter); isTop {
			// numbers straight into the output, without a temporary string
			var buf [32]byte
			if b := appendNumber(buf[:0], fv); b != nil {
				if _, err := w.Write(b); err != nil {
					return &lineError{line: o.n.Start.Line, err: err}
				}
				return nil
			}
		}
		s = pyStr(fv)
	} else {
		v, err := o.eval(r)
		if err != nil {
			return &lineError{line: o.n.Start.Line, err: err}
		}
		if v == nil {
			return nil
		}
		if r.Config.AutoEscape && v.IsString() && !v.Safe {
			s = utils.Escape(v.String())
		} else {
			s = pyStr(v)
		}
	}
	if err := write(r, s); err != nil {
		return &lineError{line: o.n.Start.Line, err: err}
	}
	return nil
}

func (o *outputNode) fastEval(r *exec.Renderer) (any, bool) {
	if o.n.Condition != nil || r.Config.AutoEscape {
		return nil, false
	}
	return o.fast.eval(r)
}

// eval evaluates an output tag; nil means "renders nothing".
func (o *outputNode) eval(r *exec.Renderer) (*exec.Value, error) {
	n := o.n
	if n.Condition != nil {
		c, err := evalFast(r, o.fcond, n.Condition)
		if err != nil {
			return nil, err
		}
		if !truthy(c) {
			if n.Alternative == nil {
				return nil, nil
			}
			return evalFast(r, o.falt, n.Alternative)
		}
	}
	if v, ok := o.ffast.eval(r); ok {
		if v.IsError() {
			return nil, v
		}
		return v, nil
	}
	return evalFast(r, o.fast, n.Expression)
}

// appendNumber appends an int or a finite float as Python prints it; nil for
// any other value (pyStr formats those).
func appendNumber(buf []byte, v any) []byte {
	switch x := v.(type) {
	case int:
		return strconv.AppendInt(buf, int64(x), 10)
	case float64:
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			return pyvalue.AppendFloat(buf, x)
		}
	}
	return nil
}

// dataNode writes literal template text, precomputed at parse time.
type dataNode struct {
	loc  *tokens.Token
	text string
}

func (d *dataNode) Position() *tokens.Token { return d.loc }
func (d *dataNode) String() string          { return "data" }

func (d *dataNode) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	if d.text == "" {
		return nil
	}
	return write(r, d.text)
}

// write sends s to the renderer's output, charging the render's budgets. At top
// level the output is the limited writer; inside macros, {% set %} blocks and
// {% filter %} blocks gonja writes to its own buffers, which are charged here.
func write(r *exec.Renderer, s string) error {
	if w, ok := r.Output.(*limitedWriter); ok {
		_, err := w.WriteString(s)
		return err
	}
	if st := stateOf(r.Environment.Context); st != nil {
		if err := st.charge(len(s)); err != nil {
			return err
		}
	}
	_, err := io.WriteString(r.Output, s)
	return err
}

// dataText computes what gonja's renderer writes for a data node, once.
func dataText(n *nodes.Data) string {
	out := n.Data.Val
	if n.RemoveFirstLineReturn {
		out = strings.TrimPrefix(out, "\r\n")
		out = strings.TrimPrefix(out, "\n")
	}
	if n.Trim.Left {
		out = strings.TrimLeft(out, " \r\n\t")
	}
	if n.Trim.Right {
		out = strings.TrimRight(out, " \r\n\t")
	}
	if n.RemoveTrailingWhiteSpaceFromLastLine {
		i := strings.LastIndexByte(out, '\n') + 1
		out = out[:i] + strings.TrimRight(out[i:], " \n\t\r")
	}
	return out
}
