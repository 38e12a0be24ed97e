package prompt

import (
	"reflect"
	"sort"
	"strings"
	"sync"

	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// Name analysis: which variables, functions, filters, tests and agent outputs
// a parsed template reads, with their positions. The walk is the rewriter's
// (rewrite.go) in its read-only mode, over the tree as it renders.

// NameKind says what a [Name] is.
type NameKind uint8

const (
	// NameVar is a variable the template reads and does not bind itself:
	// {{ topic }}.
	NameVar NameKind = iota + 1
	// NameFunc is a function called by name: {{ get_input() }}.
	NameFunc
	// NameFilter is a filter: {{ x | truncate(80) }}.
	NameFilter
	// NameTest is a test: {% if x is defined %}.
	NameTest
	// NameOutput is an agent id read from previous_outputs:
	// previous_outputs.writer, previous_outputs['writer'],
	// previous_outputs.get('writer'), get_agent_response('writer'),
	// safe_get_response('writer', …), get_loop_output('writer').
	NameOutput
)

// Name is one name a template reads. Line and Col are 1-based and relative to
// the template source; Col counts characters.
type Name struct {
	Kind      NameKind
	Name      string
	Line, Col int
	// Guarded is set on variables and outputs the template tests before use
	// (x is defined, x is undefined, x is none, has_context('id')) or gives a
	// default (x | default(…)): reading them undefined is intended.
	Guarded bool
}

// analysis is what a template's names are, computed once on first use.
type analysis struct {
	once  sync.Once
	names []Name
	// free are the variable names of names, each once, unguarded ones only.
	free []string
	// outputs are the agent ids the template reads from previous_outputs, each
	// once; allOutputs is set when it may read others too (see Template.Outputs).
	outputs    []string
	allOutputs bool
	// history is set when the template calls a history helper (historyFuncs).
	history bool
}

// historyFuncs are the helpers that read previous_outputs only to find the
// loop history (inside a loop it comes with the input): calling them does not
// make a template read every output when the caller gives [Data.EachOutput].
var historyFuncs = map[string]bool{"get_past_loops": true, "has_past_loops": true, "get_past_insights": true, "get_past_loop_data": true}

// inputOnlyFuncs are the helpers that read neither previous_outputs nor its
// order (only the input, loop_number and their arguments): calling them does
// not make a template read every output.
var inputOnlyFuncs = map[string]bool{"get_input": true, "get_current_topic": true, "get_loop_number": true}

// outputFuncs are the helpers whose first argument is an agent id.
var outputFuncs = map[string]bool{"get_agent_response": true, "safe_get_response": true, "get_loop_output": true}

// Names lists the names t reads, in source order: the variables it does not
// bind itself ({% set %}, {% for %}, {% with %}, macro parameters and the
// names Jinja binds in loops, macros and call blocks), the functions it calls
// by name (its own macros excluded), the filters and tests it applies, and
// the agent ids it reads from previous_outputs. A name bound anywhere in the
// template counts as bound everywhere in it. Names is computed once.
func (t *Template) Names() []Name {
	return t.analyze().names
}

func (t *Template) analyze() *analysis {
	a := &t.an
	a.once.Do(func() {
		walked := t.walked
		t.walked = nil
		a.allOutputs = true
		if t.plain || t.tpl == nil {
			return
		}
		ps := &parseState{src: normalize(t.src)}
		root := t.root // the tree as it renders
		if root == nil {
			return
		}
		a.names = collectNames(root, ps, walked)
		seen := map[string]bool{}
		for _, n := range a.names {
			if n.Kind == NameVar && !n.Guarded && !seen[n.Name] {
				seen[n.Name] = true
				a.free = append(a.free, n.Name)
			}
		}
		a.outputs, a.allOutputs = readOutputs(a.names)
		for _, n := range a.names {
			a.history = a.history || (n.Kind == NameFunc && historyFuncs[n.Name])
		}
	})
	return a
}

// SearchesHistory reports whether t calls a helper that searches
// previous_outputs for the loop history (get_past_loops, has_past_loops,
// get_past_insights, get_past_loop_data). [Template.Outputs] does not count
// those calls as reading every output: render such a template with
// [Data.EachOutput] set, or with every output in Data.Previous.
func (t *Template) SearchesHistory() bool { return t.analyze().history }

// Outputs returns the agent ids t reads from previous_outputs, each once, and
// whether it may read other entries too: when it calls a function other than
// get_input, get_current_topic, get_loop_number and the history helpers (see
// [Template.SearchesHistory]) (helpers such as
// get_fork_responses read every output), names a function as a value, or uses previous_outputs
// other than as previous_outputs.<id>, ['<id>'] or .get('<id>') (a loop over
// it, a filter on it, an alias, a dynamic key). Rendering t with a
// previous_outputs holding only ids (those present) then gives what the full
// mapping gives, unless all is set.
func (t *Template) Outputs() (ids []string, all bool) {
	a := t.analyze()
	return a.outputs, a.allOutputs
}

// readOutputs is Template.Outputs over names. Without function calls every
// NameOutput comes with the previous_outputs variable it is read from, so as
// many outputs as variables means no other use of previous_outputs.
func readOutputs(names []Name) (ids []string, all bool) {
	vars, outs := 0, 0
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case n.Kind == NameFunc && !inputOnlyFuncs[n.Name] && !historyFuncs[n.Name]:
			return nil, true
		case n.Kind == NameVar && known().funcs[n.Name]:
			return nil, true // a function used as a value: {% set f = get_past_loops %}
		case n.Kind == NameVar && n.Name == "previous_outputs":
			vars++
		case n.Kind == NameOutput:
			outs++
			if !seen[n.Name] {
				seen[n.Name] = true
				ids = append(ids, n.Name)
			}
		}
	}
	if vars != outs {
		return nil, true
	}
	return ids, false
}

// Names lists the names the expression reads (see [Template.Names]); positions
// are relative to the expression source.
func (e *Expr) Names() []Name {
	names := e.t.Names()
	out := make([]Name, len(names))
	for i, n := range names {
		if n.Line == 1 {
			n.Col -= len("{{ ")
		}
		out[i] = n
	}
	return out
}

// Missing lists the variables t reads unguarded that d does not bind and that
// are no helper or global function: each renders empty (or fails, in strict
// mode). It is cheap: the names are computed once per template.
func (t *Template) Missing(d Data) []string {
	var out []string
	for _, name := range t.analyze().free {
		if _, ok := d.bound(name); ok {
			continue
		}
		if known().funcs[name] {
			continue
		}
		out = append(out, name)
	}
	return out
}

// nameCollector gathers names in one walk, then drops the locally bound ones.
type nameCollector struct {
	ps       *parseState
	names    []Name
	locals   map[string]bool
	guarded  map[string]bool // variables and output ids tested or defaulted
	consumed map[any]bool    // nodes already accounted for by their parent
}

// noReplay makes collectNames walk the tree instead of replaying the walk
// rewrite recorded; tests use it to check that both give the same names.
var noReplay bool

// collectNames lists the names of the tree at root; walked, when not nil, is
// the tree's nodes in walk order as rewrite recorded them.
func collectNames(root *nodes.Template, ps *parseState, walked []any) []Name {
	c := &nameCollector{ps: ps, locals: map[string]bool{}, guarded: map[string]bool{}, consumed: map[any]bool{}}
	if walked != nil && !noReplay {
		for _, x := range walked {
			c.visit(x)
		}
	} else {
		w := &rewriter{inspect: c.visit}
		w.visit(reflect.ValueOf(root))
	}
	var out []Name
	for _, n := range c.names {
		switch n.Kind {
		case NameVar, NameFunc:
			if c.locals[n.Name] {
				continue
			}
		}
		if n.Kind == NameVar || n.Kind == NameOutput {
			n.Guarded = c.guarded[guardKey(n.Kind, n.Name)]
		}
		out = append(out, n)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Line < out[j].Line || out[i].Line == out[j].Line && out[i].Col < out[j].Col
	})
	return out
}

func guardKey(k NameKind, name string) string {
	if k == NameOutput {
		return "previous_outputs." + name
	}
	return name
}

func (c *nameCollector) add(k NameKind, name string, at *tokens.Token) {
	n := Name{Kind: k, Name: name, Line: 1, Col: 1}
	if at != nil {
		pos := at.Pos
		if at.Type == tokens.Dot {
			pos++ // previous_outputs.<id>: the id, after the dot
		}
		n.Line, n.Col = c.ps.lineCol(pos)
	}
	c.names = append(c.names, n)
}

func (c *nameCollector) visit(x any) {
	switch x.(type) {
	case *nodes.Name, *nodes.GetAttribute: // the only types call consumes
		if c.consumed[x] {
			return
		}
	}
	if !c.visitExpr(x) && !c.visitGuard(x) {
		c.visitBinder(x)
	}
}

// visitExpr collects the names an expression node reads; false when x is no
// such node.
func (c *nameCollector) visitExpr(x any) bool {
	switch n := x.(type) {
	case *nodes.Name:
		// none is Jinja's literal (gonja reads it as a name that is never bound)
		if !strings.HasPrefix(n.Name.Val, "\x00") && n.Name.Val != "none" {
			c.add(NameVar, n.Name.Val, n.Name)
		}
	case *nodes.Call:
		c.call(n)
	case *nodes.GetAttribute:
		if id, ok := outputAttr(n); ok {
			c.add(NameOutput, id, n.Location)
		}
	case *nodes.GetItem:
		if s, ok := n.Arg.(*nodes.String); ok && isOutputs(n.Node) {
			c.add(NameOutput, s.Val, s.Location)
		}
	case *nodes.FilterCall:
		c.add(NameFilter, n.Name, n.Token)
	case *nodes.TestCall:
		c.add(NameTest, n.Name, n.Token)
	default:
		return false
	}
	return true
}

// visitGuard records the expression a default filter or a defined, undefined
// or none test guards; false when x is neither.
func (c *nameCollector) visitGuard(x any) bool {
	switch n := x.(type) {
	case *nodes.FilteredExpression:
		if len(n.Filters) > 0 && (n.Filters[0].Name == "default" || n.Filters[0].Name == "d") {
			c.guard(n.Expression)
		}
	case *nodes.TestExpression:
		if n.Test != nil && (n.Test.Name == "defined" || n.Test.Name == "undefined" || n.Test.Name == "none") {
			c.guard(n.Expression)
		}
	default:
		return false
	}
	return true
}

// visitBinder records the names a statement binds (for targets, set, macro
// parameters, with).
func (c *nameCollector) visitBinder(x any) {
	switch n := x.(type) {
	case *forNode:
		c.bind(n.key, n.value, "loop")
	case *controlStructures.ForControlStructure:
		c.bind(n.Key, n.Value, "loop")
	case *controlStructures.SetControlStructure:
		c.bindSet(n)
	case *controlStructures.MacroControlStructure:
		c.bindMacro(n)
	case *controlStructures.CallControlStructure:
		c.bind("caller")
	case *controlStructures.WithControlStructure:
		f := writable(reflect.ValueOf(n).Elem().FieldByName("pairs"))
		if f.IsValid() && f.Kind() == reflect.Map {
			for _, k := range f.MapKeys() {
				c.bind(k.String())
			}
		}
	}
}

// bindSet records the name {% set name = … %} binds (its unexported target).
func (c *nameCollector) bindSet(n *controlStructures.SetControlStructure) {
	f := writable(reflect.ValueOf(n).Elem().FieldByName("target"))
	if f.IsValid() && !f.IsNil() {
		if name, ok := f.Interface().(*nodes.Name); ok {
			c.bind(name.Name.Val)
		}
	}
}

// bindMacro records a macro's name and parameters.
func (c *nameCollector) bindMacro(n *controlStructures.MacroControlStructure) {
	if n.Macro == nil {
		return
	}
	c.bind(n.Name, n.VarArgsName, n.KwArgsName, "varargs", "kwargs", "caller")
	for _, p := range n.Kwargs {
		if s, ok := p.Key.(*nodes.String); ok {
			c.bind(s.Val)
		}
	}
}

func (c *nameCollector) bind(names ...string) {
	for _, n := range names {
		if n != "" {
			c.locals[n] = true
		}
	}
}

// guard marks the variable or output id at the root of expr as guarded.
func (c *nameCollector) guard(expr nodes.Node) {
	expr = unwrapOr(expr)
	if id, ok := outputPath(expr); ok {
		c.guarded[guardKey(NameOutput, id)] = true
	}
	for {
		switch x := expr.(type) {
		case *nodes.Name:
			c.guarded[x.Name.Val] = true
			return
		case *nodes.GetAttribute:
			expr = unwrapOr(x.Node)
		case *nodes.GetItem:
			expr = unwrapOr(x.Node)
		case *nodes.Call:
			if f, ok := x.Func.(*nodes.Name); ok && isItemOp(f.Name.Val) && len(x.Args) > 0 {
				expr = unwrapOr(x.Args[0])
				continue
			}
			return
		default:
			return
		}
	}
}

// outputPath returns the agent id of previous_outputs.<id>… at the root of expr.
func outputPath(expr nodes.Node) (string, bool) {
	for {
		switch x := expr.(type) {
		case *nodes.GetAttribute:
			if id, ok := outputAttr(x); ok {
				return id, true
			}
			expr = unwrapOr(x.Node)
		case *nodes.Call:
			if id, ok := outputItem(x); ok {
				return id, true
			}
			f, ok := x.Func.(*nodes.Name)
			if !ok || !isItemOp(f.Name.Val) || len(x.Args) == 0 {
				return "", false
			}
			expr = unwrapOr(x.Args[0])
		default:
			return "", false
		}
	}
}

func (c *nameCollector) call(n *nodes.Call) {
	switch f := n.Func.(type) {
	case *nodes.Name:
		c.consumed[f] = true
		name := f.Name.Val
		if isItemOp(name) {
			if id, ok := outputItem(n); ok {
				s := n.Args[1].(*nodes.String)
				c.add(NameOutput, id, s.Location)
			}
			return
		}
		if strings.HasPrefix(name, "\x00") {
			return
		}
		c.add(NameFunc, name, f.Name)
		if name == "has_context" && len(n.Args) > 0 {
			if s, ok := n.Args[0].(*nodes.String); ok {
				c.guarded[guardKey(NameOutput, s.Val)] = true // {% if has_context('x') %}
			}
		}
		if outputFuncs[name] && len(n.Args) > 0 {
			if s, ok := n.Args[0].(*nodes.String); ok {
				c.add(NameOutput, s.Val, s.Location)
			}
		}
	case *nodes.GetAttribute:
		// previous_outputs.get('id'): a method of the mapping, not an agent
		if isOutputs(f.Node) {
			c.consumed[f] = true
			if f.Attribute == "get" && len(n.Args) > 0 {
				if s, ok := n.Args[0].(*nodes.String); ok {
					c.add(NameOutput, s.Val, s.Location)
				}
			}
		}
	}
}

func isItemOp(name string) bool { return name == opItem || name == opItemStr }

// outputItem reads previous_outputs['id'] in its rewritten form.
func outputItem(n *nodes.Call) (string, bool) {
	f, ok := n.Func.(*nodes.Name)
	if !ok || !isItemOp(f.Name.Val) || len(n.Args) != 2 || !isOutputs(n.Args[0]) {
		return "", false
	}
	s, ok := n.Args[1].(*nodes.String)
	if !ok {
		return "", false
	}
	return s.Val, true
}

// outputAttr reads previous_outputs.id.
func outputAttr(n *nodes.GetAttribute) (string, bool) {
	if n.Attribute == "" || !isOutputs(n.Node) {
		return "", false
	}
	return n.Attribute, true
}

func isOutputs(n nodes.Node) bool {
	name, ok := unwrapOr(n).(*nodes.Name)
	return ok && name.Name.Val == "previous_outputs"
}

// unwrapOr undoes the rewriter's (x or "") wrapping of attribute objects.
func unwrapOr(n nodes.Node) nodes.Node {
	if b, ok := n.(*nodes.BinaryExpression); ok && b.Operator.Token.Type == tokens.Or {
		if s, ok := b.Right.(*nodes.String); ok && s.Val == "" {
			return b.Left
		}
	}
	return n
}
