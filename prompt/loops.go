package prompt

import (
	"errors"
	"sort"
	"unicode/utf8"

	"github.com/cogloop/cogloop/internal/pyvalue"

	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// forNode replaces gonja's {% for %}: the same syntax and loop variable, one
// scope per iteration, every iteration counted against the render's budget,
// characters (not bytes) when iterating a string, and a fraction of gonja's
// allocations (gonja builds two renderers per item).
type forNode struct {
	loc        *tokens.Token
	key, value string
	iter, cond nodes.Expression
	body       *nodes.Wrapper
	empty      *nodes.Wrapper
	fastIter   *fastExpr
	// reuse: the body cannot assign variables or capture its scope (no set,
	// macro or call tag inside), so one scope serves every iteration.
	reuse bool
}

func newForNode(c *controlStructures.ForControlStructure) *forNode {
	return &forNode{
		loc: c.Position(), key: c.Key, value: c.Value,
		iter: c.ObjectEvaluator, cond: c.IfCondition,
		body: c.BodyWrapper, empty: c.EmptyWrapper,
	}
}

func (f *forNode) Position() *tokens.Token { return f.loc }
func (f *forNode) String() string          { return "for " + f.key }
func (f *forNode) compile() {
	f.fastIter = compileFast(f.iter)
	f.reuse = pureBody(f.body.Nodes)
}

// pureBody reports whether rendering ns can neither assign a variable in the
// current scope nor keep a reference to it (macros and call blocks capture
// their scope). Unknown tags count as impure.
func pureBody(ns []nodes.Node) bool {
	for _, n := range ns {
		b, ok := n.(*nodes.ControlStructureBlock)
		if !ok {
			switch n.(type) {
			case *nodes.Comment:
				continue
			}
			return false
		}
		cs := b.ControlStructure
		if l, ok := cs.(*located); ok {
			cs = l.inner
		}
		switch c := cs.(type) {
		case *outputNode, *dataNode, *controlStructures.BreakControlStructure, *controlStructures.ContinueControlStructure:
		case *ifNode:
			for _, w := range c.wrappers {
				if !pureBody(w.Nodes) {
					return false
				}
			}
		case *forNode:
			// a nested loop has scopes of its own; what it captures it
			// captures from them, and they are children of ours
			if !pureBody(c.body.Nodes) || (c.empty != nil && !pureBody(c.empty.Nodes)) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// scope is a renderer for a nested scope: a new context on top of r's.
type scope struct {
	r   exec.Renderer
	env exec.Environment
}

func inherit(r *exec.Renderer) *exec.Renderer {
	s := &scope{r: *r, env: *r.Environment}
	s.env.Context = r.Environment.Context.Inherit()
	s.r.Environment = &s.env
	return &s.r
}

// walkWrapper renders the nodes of a block body with r.
func walkWrapper(r *exec.Renderer, w *nodes.Wrapper) error {
	for _, n := range w.Nodes {
		if err := nodes.Walk(r, n); err != nil {
			return err
		}
	}
	return nil
}

type loopItem struct {
	key, value any
	hasValue   bool
}

func (f *forNode) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	obj, err := evalFast(r, f.fastIter, f.iter)
	if err != nil {
		return err
	}
	items, err := f.filter(r, f.items(obj))
	if err != nil {
		return err
	}
	if len(items) == 0 {
		if f.empty != nil {
			return walkWrapper(inherit(r), f.empty)
		}
		return nil
	}
	st := rendererState(r)
	loop := &loopInfo{items: items, depth: loopDepth(r)}
	var sub *exec.Renderer
	for i, it := range items {
		if st != nil {
			if err := st.tick(); err != nil {
				return err
			}
		}
		if sub == nil || !f.reuse {
			sub = inherit(r)
		}
		ctx := sub.Environment.Context
		f.bind(ctx, it)
		loop.i = i
		if !f.shadowsLoop() {
			ctx.Set("loop", loop)
		}
		if stop, err := loopBody(sub, f.body); stop || err != nil {
			return err
		}
	}
	return nil
}

// filter keeps the items for which the loop's if condition holds.
func (f *forNode) filter(r *exec.Renderer, items []loopItem) ([]loopItem, error) {
	if f.cond == nil || len(items) == 0 {
		return items, nil
	}
	scratch := inherit(r)
	kept := items[:0:0]
	for _, it := range items {
		f.bind(scratch.Environment.Context, it)
		c := scratch.Eval(f.cond)
		if c.IsError() {
			return nil, c
		}
		if truthy(c) {
			kept = append(kept, it)
		}
	}
	return kept, nil
}

// loopDepth is the depth of a loop started in r: 1, or one more than the
// enclosing loop's.
func loopDepth(r *exec.Renderer) int {
	if parent, ok := r.Environment.Context.Get("loop"); ok {
		if p, ok := parent.(*loopInfo); ok {
			return p.depth + 1
		}
	}
	return 1
}

// loopBody renders one pass of a loop's body; stop is true after a
// {% break %}, and a {% continue %} is no error.
func loopBody(sub *exec.Renderer, body *nodes.Wrapper) (stop bool, err error) {
	err = walkWrapper(sub, body)
	var brk *controlStructures.LoopBreakError
	var cont *controlStructures.LoopContinueError
	switch {
	case err == nil || errors.As(err, &cont):
		return false, nil
	case errors.As(err, &brk):
		return true, nil
	}
	return true, err
}

// shadowsLoop reports whether a target is named loop: {% for loop in
// get_past_loops() %} (OrKa's documentation) reads each item as loop, so the
// target hides the special loop variable.
func (f *forNode) shadowsLoop() bool { return f.key == "loop" || f.value == "loop" }

func (f *forNode) bind(ctx *exec.Context, it loopItem) {
	k, v := f.targets(it)
	ctx.Set(f.key, k)
	if f.value != "" {
		ctx.Set(f.value, v)
	}
}

// targets returns what the loop's targets are bound to for it: the key
// target's value, and the value target's when there is one.
func (f *forNode) targets(it loopItem) (k, v any) {
	if f.value != "" && !it.hasValue && isList(it.key) && listLen(it.key) == 2 {
		// for k, v in [[k, v], ...]
		k, _ = listAt(it.key, 0)
		v, _ = listAt(it.key, 1)
		return viewed(k), viewed(v)
	}
	return viewed(it.key), viewed(it.value) // value nil when the item has no value
}

// items lists what a for loop iterates: list elements, mapping keys (sorted;
// with values for "for k, v in mapping"), or the characters of a string.
func (f *forNode) items(obj any) []loopItem {
	v := unval(obj)
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		out := make([]loopItem, len(x))
		for i, e := range x {
			out[i].key = e
		}
		return out
	case string:
		out := make([]loopItem, 0, utf8.RuneCountInString(x))
		for _, c := range x {
			out = append(out, loopItem{key: string(c)})
		}
		return out
	case *exec.Dict, exec.Dict:
		var pairs []*exec.Pair
		if d, ok := x.(*exec.Dict); ok {
			pairs = d.Pairs
		} else {
			pairs = x.(exec.Dict).Pairs
		}
		out := make([]loopItem, len(pairs))
		for i, p := range pairs {
			out[i] = loopItem{key: unval(p.Key), value: unval(p.Value), hasValue: true}
		}
		return out
	case *pyvalue.Dict:
		out := make([]loopItem, x.Len())
		for i, k := range x.Keys() {
			val, _ := x.Get(k)
			out[i] = loopItem{key: k, value: val, hasValue: true}
		}
		return out
	}
	switch {
	case isMapping(v):
		keys := mapKeys(v)
		sort.Strings(keys)
		out := make([]loopItem, len(keys))
		for i, k := range keys {
			val, _ := mapGet(v, k)
			out[i] = loopItem{key: k, value: val, hasValue: true}
		}
		return out
	case isList(v):
		n := listLen(v)
		out := make([]loopItem, n)
		for i := range out {
			out[i].key, _ = listAt(v, i)
		}
		return out
	}
	return nil
}

// loopInfo is the loop variable: loop.index, loop.first, loop.cycle(...), ...
type loopInfo struct {
	items   []loopItem
	i       int
	depth   int
	changed *exec.Value
}

func (l *loopInfo) item(i int) *exec.Value {
	if i < 0 || i >= len(l.items) {
		return exec.AsValue(nil)
	}
	it := l.items[i]
	if it.hasValue {
		return exec.AsValue([]any{it.key, it.value})
	}
	return toValue(it.key)
}

// GetAttribute implements exec.AttributeGetter.
func (l *loopInfo) GetAttribute(name string) (*exec.Value, bool) {
	if n, ok := l.counter(name); ok {
		return exec.AsValue(n), true
	}
	switch name {
	case "previtem", "PrevItem":
		return l.item(l.i - 1), true
	case "nextitem", "NextItem":
		return l.item(l.i + 1), true
	case "cycle", "Cycle":
		return exec.AsValue(l.cycle), true
	case "changed", "Changed":
		return exec.AsValue(l.changedSince), true
	}
	return exec.AsValue(nil), false
}

// counter returns loop.index, index0, revindex, revindex0, first, last,
// length, depth or depth0.
func (l *loopInfo) counter(name string) (any, bool) {
	n := len(l.items)
	switch name {
	case "index":
		return l.i + 1, true
	case "index0":
		return l.i, true
	case "revindex":
		return n - l.i, true
	case "revindex0":
		return n - l.i - 1, true
	case "first":
		return l.i == 0, true
	case "last":
		return l.i == n-1, true
	case "length":
		return n, true
	case "depth":
		return l.depth, true
	case "depth0":
		return l.depth - 1, true
	}
	return nil, false
}

// cycle is loop.cycle(a, b, ...): the argument at the pass's index, in turn.
func (l *loopInfo) cycle(va *exec.VarArgs) *exec.Value {
	if len(va.Args) == 0 {
		return exec.AsValue("")
	}
	return va.Args[l.i%len(va.Args)]
}

// changedSince is loop.changed(value, ...): whether the values differ from
// those of the last call.
func (l *loopInfo) changedSince(va *exec.VarArgs) *exec.Value {
	cur := exec.AsValue(nil)
	if len(va.Args) == 1 {
		cur = va.Args[0]
	} else if len(va.Args) > 1 {
		items := make([]any, len(va.Args))
		for i, a := range va.Args {
			items[i] = a.Interface()
		}
		cur = exec.AsValue(items)
	}
	same := l.changed != nil && cur.EqualValueTo(l.changed)
	l.changed = cur
	return exec.AsValue(!same)
}

// ifNode replaces gonja's {% if %}: conditions are read with Python
// truthiness, and the chosen branch renders in the enclosing scope (what gonja
// achieves by rendering in a copy and copying the variables back).
type ifNode struct {
	loc      *tokens.Token
	conds    []nodes.Expression
	wrappers []*nodes.Wrapper
	fast     []*fastExpr
}

func newIfNode(c *controlStructures.IfControlStructure) *ifNode {
	return &ifNode{loc: c.Position(), conds: c.Conditions, wrappers: c.Wrappers}
}

func (n *ifNode) Position() *tokens.Token { return n.loc }
func (n *ifNode) String() string          { return "if" }

func (n *ifNode) compile() {
	n.fast = make([]*fastExpr, len(n.conds))
	for i, c := range n.conds {
		n.fast[i] = compileFast(c)
	}
}

func (n *ifNode) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	for i, cond := range n.conds {
		var f *fastExpr
		if i < len(n.fast) {
			f = n.fast[i]
		}
		v, err := evalFast(r, f, cond)
		if err != nil {
			return err
		}
		if truthy(v) {
			return walkWrapper(r, n.wrappers[i])
		}
	}
	if len(n.wrappers) > len(n.conds) {
		return walkWrapper(r, n.wrappers[len(n.conds)])
	}
	return nil
}
