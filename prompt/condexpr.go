package prompt

import (
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// Conditional expressions (a if c else b) anywhere Jinja allows them. gonja
// parses one only at the top of {{ }}: not chained (a if c else b if c2 else
// d), not inside parentheses, arguments, lists or {% set %}. Before gonja parses
// a tag, each conditional it cannot parse is rewritten in the token stream to a
// call of an internal function, cond(c, a, b) (tokens keep their positions);
// the tree rewriter then turns that call into an expression gonja evaluates
// lazily, like Jinja: only the chosen branch is evaluated. Without else, a
// false condition gives None (Jinja's undefined: it renders empty).
//
// As in Jinja, a conditional binds loosest: in x | f if c else y | g the
// branches are x | f and y | g; its condition is everything between if and
// else. Its extent ends at a comma, a colon or an = outside brackets, or at
// the bracket or tag that encloses it. The top-level if of a {% for %} is the
// loop filter, not a conditional, and the test of {% if %} and {% elif %}
// cannot be one (Jinja rejects both).

const (
	opCond  = "\x00cond"  // cond(c, a[, b]) before the tree rewrite
	opTruth = "\x00truth" // Python truthiness as a bool
)

// rewriteConditionals returns toks with the conditionals gonja cannot parse
// rewritten as cond(...) calls.
func rewriteConditionals(toks []*tokens.Token) []*tokens.Token {
	has := false
	for _, t := range toks {
		if isName(t, "if") {
			has = true
			break
		}
	}
	if !has {
		return toks
	}
	out := make([]*tokens.Token, 0, len(toks)+8)
	for i := 0; i < len(toks); {
		t := toks[i]
		if t.Type != tokens.VariableBegin && t.Type != tokens.BlockBegin {
			out = append(out, t)
			i++
			continue
		}
		end := tokens.VariableEnd
		if t.Type == tokens.BlockBegin {
			end = tokens.BlockEnd
		}
		j := i + 1
		for j < len(toks) && toks[j].Type != end && toks[j].Type != tokens.EOF && toks[j].Type != tokens.Error {
			j++
		}
		out = append(out, t)
		inner := toks[i+1 : j]
		if !hasIf(inner, t.Type == tokens.BlockBegin) {
			out = append(out, inner...)
		} else if t.Type == tokens.VariableBegin {
			out = append(out, outputTag(inner)...)
		} else {
			out = append(out, blockTag(inner)...)
		}
		i = j
	}
	return out
}

// startsExpr reports whether ts can begin an expression.
func startsExpr(ts []*tokens.Token) bool {
	if len(ts) == 0 {
		return false
	}
	switch t := ts[0]; t.Type {
	case tokens.Name:
		return t.Val != "if" && t.Val != "else"
	case tokens.String, tokens.Integer, tokens.Float, tokens.Not, tokens.Addition, tokens.Subtraction:
		return true
	}
	return opens(ts[0])
}

// hasIf reports whether a tag has an if other than its tag name.
func hasIf(ts []*tokens.Token, block bool) bool {
	for i, t := range ts {
		if isName(t, "if") && !(block && i == 0) {
			return true
		}
	}
	return false
}

func isName(t *tokens.Token, name string) bool { return t.Type == tokens.Name && t.Val == name }

func opens(t *tokens.Token) bool {
	return t.Type == tokens.LeftParenthesis || t.Type == tokens.LeftBracket || t.Type == tokens.LeftBrace
}

func closes(t *tokens.Token) bool {
	return t.Type == tokens.RightParenthesis || t.Type == tokens.RightBracket || t.Type == tokens.RightBrace
}

// topLevel returns the indexes of the tokens of ts outside brackets for which
// match is true, or ok false when the brackets do not balance.
func topLevel(ts []*tokens.Token, match func(*tokens.Token) bool) (idx []int, ok bool) {
	depth := 0
	for i, t := range ts {
		switch {
		case opens(t):
			depth++
		case closes(t):
			depth--
			if depth < 0 {
				return nil, false
			}
		case depth == 0 && match(t):
			idx = append(idx, i)
		}
	}
	return idx, depth == 0
}

func separator(t *tokens.Token) bool {
	return t.Type == tokens.Comma || t.Type == tokens.Colon || t.Type == tokens.Assign
}

// outputTag rewrites the inside of {{ }}. A single top-level conditional is
// left to gonja (its own Output condition, with a fast path); conditionals in
// its branches and elsewhere are rewritten.
func outputTag(ts []*tokens.Token) []*tokens.Token {
	if seps, ok := topLevel(ts, separator); !ok || len(seps) > 0 {
		return expression(ts)
	}
	ifs, _ := topLevel(ts, func(t *tokens.Token) bool { return isName(t, "if") })
	if len(ifs) == 0 {
		return nested(ts)
	}
	i := ifs[0]
	elses, _ := topLevel(ts[i+1:], func(t *tokens.Token) bool { return isName(t, "else") })
	if len(elses) == 0 {
		return nested(ts)
	}
	j := i + 1 + elses[0]
	if !startsExpr(ts[:i]) || !startsExpr(ts[i+1:j]) || !startsExpr(ts[j+1:]) {
		return nested(ts)
	}
	return join(nested(ts[:i]), ts[i:i+1], nested(ts[i+1:j]), ts[j:j+1], segment(ts[j+1:]))
}

// blockTag rewrites the inside of {% %}: the tag name is kept; the top-level if
// of a for tag is its filter.
func blockTag(ts []*tokens.Token) []*tokens.Token {
	if len(ts) == 0 || ts[0].Type != tokens.Name {
		return ts
	}
	switch ts[0].Val {
	case "if", "elif":
		// Jinja reads the test without a top-level conditional
		return join(ts[:1], nested(ts[1:]))
	case "for":
	default:
		return join(ts[:1], expression(ts[1:]))
	}
	ins, ok := topLevel(ts, func(t *tokens.Token) bool { return t.Type == tokens.In })
	if !ok || len(ins) == 0 {
		return ts
	}
	in := ins[0]
	rest := ts[in+1:]
	kw, _ := topLevel(rest, func(t *tokens.Token) bool { return isName(t, "if") || isName(t, "recursive") })
	if len(kw) == 0 {
		return join(ts[:in+1], nested(rest))
	}
	k := kw[0]
	out := join(ts[:in+1], nested(rest[:k]), rest[k:k+1])
	if rest[k].Val == "recursive" {
		return append(out, rest[k+1:]...)
	}
	filter := rest[k+1:]
	if r, _ := topLevel(filter, func(t *tokens.Token) bool { return isName(t, "recursive") }); len(r) > 0 {
		return join(out, expression(filter[:r[0]]), filter[r[0]:])
	}
	return join(out, expression(filter))
}

// expression rewrites a list of expressions separated by commas, colons or =.
func expression(ts []*tokens.Token) []*tokens.Token {
	seps, ok := topLevel(ts, separator)
	if !ok {
		return ts
	}
	out := make([]*tokens.Token, 0, len(ts))
	start := 0
	for _, s := range seps {
		out = append(out, segment(ts[start:s])...)
		out = append(out, ts[s])
		start = s + 1
	}
	return append(out, segment(ts[start:])...)
}

// segment rewrites one expression: a conditional at its top becomes cond(...).
func segment(ts []*tokens.Token) []*tokens.Token {
	ifs, ok := topLevel(ts, func(t *tokens.Token) bool { return isName(t, "if") })
	if !ok || len(ifs) == 0 || ifs[0] == 0 {
		return nested(ts)
	}
	i := ifs[0]
	at := ts[i]
	a, c := ts[:i], ts[i+1:]
	var b []*tokens.Token
	if elses, _ := topLevel(c, func(t *tokens.Token) bool { return isName(t, "else") }); len(elses) > 0 {
		c, b = ts[i+1:i+1+elses[0]], ts[i+2+elses[0]:]
		if len(b) == 0 {
			return nested(ts) // a if c else: gonja reports it
		}
	}
	if !startsExpr(a) || !startsExpr(c) || (b != nil && !startsExpr(b)) {
		return nested(ts) // not a conditional gonja could parse: it reports the error
	}
	out := join([]*tokens.Token{synth(at, tokens.Name, opCond), synth(at, tokens.LeftParenthesis, "(")},
		nested(c), []*tokens.Token{synth(at, tokens.Comma, ",")}, nested(a))
	if b != nil {
		out = join(out, []*tokens.Token{synth(at, tokens.Comma, ",")}, segment(b))
	}
	return append(out, synth(at, tokens.RightParenthesis, ")"))
}

// nested rewrites the insides of the brackets of ts.
func nested(ts []*tokens.Token) []*tokens.Token {
	if _, ok := topLevel(ts, func(*tokens.Token) bool { return false }); !ok {
		return ts // unbalanced: gonja reports it
	}
	out := make([]*tokens.Token, 0, len(ts))
	depth, start := 0, 0
	for i, t := range ts {
		switch {
		case opens(t):
			if depth == 0 {
				start = i
			}
			depth++
		case closes(t):
			depth--
			if depth == 0 {
				out = append(out, ts[start])
				out = append(out, expression(ts[start+1:i])...)
				out = append(out, t)
			}
		case depth == 0:
			out = append(out, t)
		}
	}
	return out
}

func synth(at *tokens.Token, typ tokens.Type, val string) *tokens.Token {
	return &tokens.Token{Type: typ, Val: val, Pos: at.Pos, Line: at.Line, Col: at.Col}
}

func join(parts ...[]*tokens.Token) []*tokens.Token {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]*tokens.Token, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// condNode is the tree form of cond(c, a, b): (truth(c) and [a] or [b])[0],
// which gonja evaluates lazily (and/or short-circuit; one-element lists are
// true).
func condNode(item string, x *nodes.Call) nodes.Expression {
	at := x.Location
	c, a := x.Args[0], x.Args[1]
	var b nodes.Expression
	if len(x.Args) > 2 {
		b = x.Args[2]
	} else {
		b = &nodes.None{Location: at} // undefined in Jinja; renders empty, also in strict mode
	}
	op := func(typ tokens.Type, val string) *nodes.BinOperator {
		return &nodes.BinOperator{Token: synth(at, typ, val)}
	}
	and := &nodes.BinaryExpression{
		Left:     internalCall(opTruth, at, c),
		Operator: op(tokens.And, "and"),
		Right:    &nodes.List{Location: at, Val: []nodes.Expression{a}},
	}
	or := &nodes.BinaryExpression{
		Left:     and,
		Operator: op(tokens.Or, "or"),
		Right:    &nodes.List{Location: at, Val: []nodes.Expression{b}},
	}
	return internalCall(item, at, or, &nodes.Integer{Location: at, Val: 0})
}

// truthOp is Python's truthiness of its argument, as a bool.
func truthOp(_ *exec.Evaluator, va *exec.VarArgs) *exec.Value {
	if len(va.Args) != 1 {
		return errValue("internal error: truth takes one argument")
	}
	return exec.AsValue(truthy(va.Args[0]))
}
