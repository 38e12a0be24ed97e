package prompt

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"

	"github.com/cogloop/cogloop/internal/perf"
)

// The parsed tree is rewritten once, after parsing, so that rendering it is safe
// and behaves like Jinja where gonja does not:
//
//   - {{ }} and literal text become outputNode/dataNode (Python formatting of
//     values, budgets, precomputed whitespace control);
//   - a + b, a * b, a ~ b, a % b, a ** b, a / b and a // b become calls to
//     bounded operators (gonja's "x" * 10**12 would allocate a terabyte), with
//     Python semantics for % (string formatting), ** (integer powers), // (floor)
//     and division by zero (an error, not a crash or inf);
//   - x[i] and x.0 become a call with Python indexing (gonja gets x[-1] wrong on a
//     one-element list, and errors on an integer key of a mapping);
//   - outside strict mode, the object of x.attr is evaluated as (x or ""), so
//     that an attribute of an undefined value is undefined instead of an error,
//     as with Jinja's ChainableUndefined.
//
// Some of gonja's control structures keep their expressions in unexported
// fields; the walker reaches them through reflect and unsafe.NewAt. It only
// visits types of gonja's nodes and control_structures packages and this one.
// gonja is pinned exactly in go.mod; gonja_layout_test.go fails when its
// version, a node type or a field layout differs from what this walker knows.

var (
	nodeType     = reflect.TypeFor[nodes.Node]()
	exprType     = reflect.TypeFor[nodes.Expression]()
	nodesPkg     = reflect.TypeFor[nodes.Template]().PkgPath()
	ctrlPkg      = reflect.TypeFor[controlStructures.ForControlStructure]().PkgPath()
	ownPkg       = reflect.TypeFor[outputNode]().PkgPath()
	setStructTyp = reflect.TypeFor[controlStructures.SetControlStructure]()
)

// Names of the internal operator functions; the NUL byte keeps them out of
// templates' reach.
const (
	opAdd      = "\x00add"
	opMul      = "\x00mul"
	opConcat   = "\x00concat"
	opMod      = "\x00mod"
	opPow      = "\x00pow"
	opDiv      = "\x00div"
	opFloorDiv = "\x00floordiv"
	opItem     = "\x00item"
	opItemStr  = "\x00item!"
)

type rewriter struct {
	strict    bool
	compilers *[]interface{ compile() }
	seen      visited
	replaced  map[[2]uintptr]nodes.Node // by nodeKey
	fits      map[[2]reflect.Type]bool  // assignable reports, by (value type, slot type)
	// inspect, when set, makes the walk read-only: it is called with every
	// node and control structure the walk reaches (pre-order), and nothing is
	// replaced or wrapped (see names.go).
	inspect func(x any)
	// walked, in the rewriting mode, collects what inspect would be called
	// with on the rewritten tree, in the same order: the walk changes a node
	// or a slot only before visiting what is under it, so the pre-order it
	// goes through is the rewritten tree's (names.go replays it instead of
	// walking the tree a second time).
	walked []any
}

// visited is the set of structs the walk has reached, by type and address (a
// struct and its first field share an address): a small open-addressing
// table, cheaper than a map for the few hundred nodes of a template.
type visited struct {
	keys []seenKey
	n    int
	m    map[seenKey]bool // instead, under COGLOOP_PERF_OFF=visitedset
}

type seenKey struct {
	t *typeInfo
	p uintptr
}

// add records (t, p), p not 0; it reports false when it was recorded already.
func (s *visited) add(t *typeInfo, p uintptr) bool {
	if perf.Off(perf.VisitedSet) {
		if s.m == nil {
			s.m = map[seenKey]bool{}
		}
		k := seenKey{t, p}
		if s.m[k] {
			return false
		}
		s.m[k] = true
		return true
	}
	if 2*(s.n+1) > len(s.keys) {
		old := s.keys
		s.keys, s.n = make([]seenKey, max(64, 2*len(old))), 0
		for _, k := range old {
			if k.p != 0 {
				s.add(k.t, k.p)
			}
		}
	}
	mask := uintptr(len(s.keys) - 1)
	for i := (p >> 3) * 0x9E3779B9 & mask; ; i = (i + 1) & mask {
		k := &s.keys[i]
		if k.p == 0 {
			*k = seenKey{t, p}
			s.n++
			return true
		}
		if k.p == p && k.t == t {
			return false
		}
	}
}

// nodeKey identifies a node by its interface words (type and pointer).
func nodeKey(n nodes.Node) [2]uintptr { return *(*[2]uintptr)(unsafe.Pointer(&n)) }

// rewrite rewrites the tree at root and returns the nodes and control
// structures of the rewritten tree in the order the read-only walk reaches them.
func rewrite(root *nodes.Template, ps *parseState, strict bool) (walked []any) {
	w := &rewriter{strict: strict, compilers: &ps.compilers, replaced: map[[2]uintptr]nodes.Node{}}
	w.visit(reflect.ValueOf(root))
	for _, c := range ps.compilers {
		c.compile()
	}
	return w.walked
}

// writable returns v, or for a value read through an unexported field a view of
// the same memory that reflect lets us read and set.
func writable(v reflect.Value) reflect.Value {
	if v.CanSet() || !v.CanAddr() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// typeInfo is what the walk needs to know of a type, computed once per type
// (reflect's PkgPath and Implements are slow, and a map lookup per
// value adds up): the infos of a type's parts are linked, so the walk looks a
// type up only behind interfaces.
type typeInfo struct {
	walkable bool // a type of gonja's nodes or control_structures packages, or ours
	isNode   bool // an interface type that implements nodes.Node
	// inert: no value of the type can hold a node (scalars, pointers to
	// types the walk does not enter, slices and maps of those)
	inert  bool
	fields []fieldInfo // of a walkable struct: the fields that can hold nodes
	elem   *typeInfo   // of a pointer, slice, array or map: its element's
}

type fieldInfo struct {
	i  int
	ti *typeInfo
}

// typeInfos maps a type's address to its complete info. The map is never
// changed once stored: a new type stores a new map (a few dozen types ever, and
// the walk looks a type up for every node behind an interface, so the lookup
// is a plain map read).
var (
	typeInfos   atomic.Pointer[map[uintptr]*typeInfo]
	typeInfosMu sync.Mutex
)

// typeKey is the address of t's runtime type, which identifies it.
func typeKey(t reflect.Type) uintptr { return uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1]) }

func typeInfoOf(t reflect.Type) *typeInfo {
	if m := typeInfos.Load(); m != nil {
		if ti, ok := (*m)[typeKey(t)]; ok {
			return ti
		}
	}
	typeInfosMu.Lock()
	defer typeInfosMu.Unlock()
	old := map[uintptr]*typeInfo{}
	if m := typeInfos.Load(); m != nil {
		old = *m
	}
	if ti, ok := old[typeKey(t)]; ok {
		return ti
	}
	building := map[reflect.Type]*typeInfo{}
	ti := buildTypeInfo(t, old, building)
	next := make(map[uintptr]*typeInfo, len(old)+len(building))
	for k, ti := range old {
		next[k] = ti
	}
	for t, ti := range building {
		next[typeKey(t)] = ti
	}
	typeInfos.Store(&next)
	return ti
}

// buildTypeInfo computes t's info and those of its parts; done holds the
// complete infos, building those under construction (types can be recursive).
func buildTypeInfo(t reflect.Type, done map[uintptr]*typeInfo, building map[reflect.Type]*typeInfo) *typeInfo {
	if ti, ok := done[typeKey(t)]; ok {
		return ti
	}
	if ti, ok := building[t]; ok {
		return ti
	}
	p := t.PkgPath()
	ti := &typeInfo{walkable: p == nodesPkg || p == ctrlPkg || p == ownPkg}
	building[t] = ti
	switch t.Kind() {
	case reflect.Interface:
		ti.isNode = t.Implements(nodeType)
	case reflect.Pointer:
		ti.elem = buildTypeInfo(t.Elem(), done, building)
		ti.inert = !ti.elem.walkable
	case reflect.Slice, reflect.Array, reflect.Map:
		ti.elem = buildTypeInfo(t.Elem(), done, building)
		ti.inert = ti.elem.inert
	case reflect.Struct:
		ti.inert = !ti.walkable
		if ti.walkable {
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if t == setStructTyp && f.Name == "target" {
					continue // assignment target: evaluated for its place, not its value
				}
				if fi := buildTypeInfo(f.Type, done, building); !fi.inert {
					ti.fields = append(ti.fields, fieldInfo{i, fi})
				}
			}
		}
	default:
		ti.inert = true
	}
	return ti
}

func (w *rewriter) visit(v reflect.Value) { w.visitT(v, typeInfoOf(v.Type())) }

// node returns the node in the settable interface slot v, read in place for
// the two slot types of nearly every node.
func (w *rewriter) node(v reflect.Value) (nodes.Node, bool) {
	switch v.Type() {
	case nodeType:
		return *(*nodes.Node)(unsafe.Pointer(v.UnsafeAddr())), true
	case exprType:
		return *(*nodes.Expression)(unsafe.Pointer(v.UnsafeAddr())), true
	}
	n, ok := v.Interface().(nodes.Node)
	return n, ok
}

// set stores rep in the interface slot v when the slot's type admits it,
// without reflect's conversion for the two slot types of nearly every node.
func (w *rewriter) set(v reflect.Value, rep nodes.Node) {
	switch slot := v.Type(); slot {
	case nodeType:
		*(*nodes.Node)(unsafe.Pointer(v.UnsafeAddr())) = rep
	case exprType:
		if e, ok := rep.(nodes.Expression); ok {
			*(*nodes.Expression)(unsafe.Pointer(v.UnsafeAddr())) = e
		}
	default:
		if w.assignable(reflect.TypeOf(rep), slot) {
			v.Set(reflect.ValueOf(rep))
		}
	}
}

// visitT visits v, whose type's info is ti.
func (w *rewriter) visitT(v reflect.Value, ti *typeInfo) {
	if ti.inert {
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		w.visitInterface(v, ti)
	case reflect.Pointer:
		w.visitPointer(v, ti)
	case reflect.Struct:
		for _, f := range ti.fields {
			w.visitT(writable(v.Field(f.i)), f.ti)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w.visitT(writable(v.Index(i)), ti.elem)
		}
	case reflect.Map:
		w.visitMap(v, ti)
	}
}

// visitInterface replaces the node an interface field holds, then visits it.
func (w *rewriter) visitInterface(v reflect.Value, ti *typeInfo) {
	if v.IsNil() {
		return
	}
	if v.CanSet() && ti.isNode {
		if n, ok := w.node(v); ok {
			if rep := w.replacement(n); rep != nil {
				w.set(v, rep)
			}
		}
	}
	w.visit(v.Elem())
}

// visitPointer visits what v points to, once: it records the node as walked
// and mends it (fixNode) first.
func (w *rewriter) visitPointer(v reflect.Value, ti *typeInfo) {
	if v.IsNil() || !w.seen.add(ti, v.Pointer()) {
		return
	}
	x := v.Interface()
	if w.inspect != nil {
		w.inspect(x)
		w.visitT(v.Elem(), ti.elem)
		return
	}
	w.walked = append(w.walked, x)
	w.fixNode(x)
	w.visitT(v.Elem(), ti.elem)
}

// fixNode mends a node in place: the object of a method call on a
// parenthesised expression, and (outside strict mode) the chainable
// undefined of an attribute's object.
func (w *rewriter) fixNode(x any) {
	if c, ok := x.(*nodes.Call); ok && c.Parent == nil {
		// (x | f).method(): gonja's parser sets the object of a method call
		// only for names and getters, not for a parenthesised expression
		if g, ok := c.Func.(*nodes.GetAttribute); ok && g.Attribute != "" {
			c.Parent = g.Node
		}
	}
	if !w.strict {
		if g, ok := x.(*nodes.GetAttribute); ok && g.Attribute != "" {
			g.Node = orEmpty(g.Node)
		}
	}
}

// visitMap replaces the nodes a map's values hold, then visits them. The
// entries are read before any is replaced.
func (w *rewriter) visitMap(v reflect.Value, ti *typeInfo) {
	iter := v.MapRange()
	type kv struct{ k, v reflect.Value }
	var todo []kv
	for iter.Next() {
		todo = append(todo, kv{iter.Key(), iter.Value()})
	}
	for _, e := range todo {
		val, vti := e.v, ti.elem
		if val.Kind() == reflect.Interface && !val.IsNil() && vti.isNode {
			if n, ok := val.Elem().Interface().(nodes.Node); ok {
				if rep := w.replacement(n); rep != nil && w.assignable(reflect.TypeOf(rep), v.Type().Elem()) {
					v.SetMapIndex(e.k, reflect.ValueOf(rep))
					val = reflect.ValueOf(rep)
					vti = typeInfoOf(val.Type())
				}
			}
		}
		w.visitT(val, vti)
	}
}

// assignable is t.AssignableTo(slot), remembered for the walk: a template
// replaces the same few node types into the same few interface types many
// times, and reflect answers each by comparing method sets.
func (w *rewriter) assignable(t, slot reflect.Type) bool {
	k := [2]reflect.Type{t, slot}
	ok, known := w.fits[k]
	if !known {
		ok = t.AssignableTo(slot)
		if w.fits == nil {
			w.fits = map[[2]reflect.Type]bool{}
		}
		w.fits[k] = ok
	}
	return ok
}

// replacement returns the node that takes n's place, or nil to keep n. The same
// node reached through two fields gets the same replacement.
func (w *rewriter) replacement(n nodes.Node) nodes.Node {
	if w.inspect != nil {
		return nil
	}
	switch n.(type) {
	case *nodes.Output, *nodes.Data, *nodes.BinaryExpression, *nodes.Call, *nodes.GetItem, *nodes.GetAttribute:
	default:
		return nil // not a type that is ever replaced
	}
	if rep, ok := w.replaced[nodeKey(n)]; ok {
		return rep
	}
	rep := w.replace(n)
	if rep != nil {
		w.replaced[nodeKey(n)] = rep
	}
	return rep
}

// replace builds n's replacement: our output and data nodes, internal calls
// for the operators and indexing with Python's semantics, and conditional
// expressions; nil to keep n.
func (w *rewriter) replace(n nodes.Node) nodes.Node {
	switch x := n.(type) {
	case *nodes.Output:
		o := &outputNode{n: x}
		*w.compilers = append(*w.compilers, o)
		return &nodes.ControlStructureBlock{Location: x.Start, Name: "output", ControlStructure: o}
	case *nodes.Data:
		return &nodes.ControlStructureBlock{Location: x.Data, Name: "data", ControlStructure: &dataNode{loc: x.Data, text: dataText(x)}}
	case *nodes.BinaryExpression:
		if name := binaryOp(x.Operator.Token.Type); name != "" {
			return internalCall(name, x.Operator.Token, x.Left, x.Right)
		}
	case *nodes.Call:
		if f, ok := x.Func.(*nodes.Name); ok && f.Name.Val == opCond && len(x.Args) >= 2 {
			return condNode(w.itemOp(), x)
		}
	case *nodes.GetItem:
		if x.Arg != nil {
			return internalCall(w.itemOp(), x.Location, x.Node, x.Arg)
		}
	case *nodes.GetAttribute:
		if x.Attribute == "" {
			idx := &nodes.Integer{Location: x.Location, Val: x.Index}
			return internalCall(w.itemOp(), x.Location, x.Node, idx)
		}
	}
	return nil
}

// binaryOp names the internal call that evaluates a binary operator with
// Python's semantics; "" for an operator gonja evaluates.
func binaryOp(t tokens.Type) string {
	switch t {
	case tokens.Addition:
		return opAdd
	case tokens.Multiply:
		return opMul
	case tokens.Tilde:
		return opConcat
	case tokens.Modulo:
		return opMod
	case tokens.Power:
		return opPow
	case tokens.Division:
		return opDiv
	case tokens.FloorDivision:
		return opFloorDiv
	}
	return ""
}

func (w *rewriter) itemOp() string {
	if w.strict {
		return opItemStr
	}
	return opItem
}

func internalCall(name string, at *tokens.Token, args ...nodes.Node) *nodes.Call {
	tok := &tokens.Token{Type: tokens.Name, Val: name}
	if at != nil {
		tok.Pos, tok.Line, tok.Col = at.Pos, at.Line, at.Col
	}
	exprs := make([]nodes.Expression, len(args))
	for i, a := range args {
		exprs[i] = a
	}
	return &nodes.Call{Location: tok, Func: &nodes.Name{Name: tok}, Args: exprs, Kwargs: map[string]nodes.Expression{}}
}

// orEmpty wraps x as (x or ""): a falsy x (None, undefined, "", 0, empty
// collections) is replaced by "", whose attributes are all undefined — the
// same result gonja gives for those values, minus the error for None.
func orEmpty(x nodes.Node) nodes.Expression {
	if b, ok := x.(*nodes.BinaryExpression); ok && b.Operator.Token.Type == tokens.Or {
		if s, ok := b.Right.(*nodes.String); ok && s.Val == "" {
			return b // already wrapped
		}
	}
	at := x.Position()
	or := &tokens.Token{Type: tokens.Or, Val: "or"}
	empty := &tokens.Token{Type: tokens.String, Val: ""}
	if at != nil {
		or.Pos, or.Line, or.Col = at.Pos, at.Line, at.Col
		empty.Pos, empty.Line, empty.Col = at.Pos, at.Line, at.Col
	}
	return &nodes.BinaryExpression{
		Left:     x,
		Operator: &nodes.BinOperator{Token: or},
		Right:    &nodes.String{Location: empty, Val: ""},
	}
}
