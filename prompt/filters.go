package prompt

import (
	"fmt"
	"strings"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// keptFilters are gonja's builtin filters prompts may use, each wrapped so that
// the values it builds stay within the limits.
var keptFilters = []string{
	"abs", "attr", "batch", "capitalize", "center", "count", "dictsort", "e", "escape",
	"filesizeformat", "first", "float", "forceescape", "groupby", "indent", "int",
	"join", "last", "length", "list", "lower", "map", "max", "min", "pprint", "random",
	"reject", "rejectattr", "replace", "round", "safe", "select", "selectattr",
	"slice", "sort", "striptags", "sum", "title", "trim", "unique", "upper", "urlencode",
	"urlize", "wordcount", "wordwrap", "xmlattr",
}

func buildFilters() *exec.FilterSet {
	m := map[string]exec.FilterFunction{}
	for _, name := range keptFilters {
		f, ok := builtins.Filters.Get(name)
		if !ok {
			panic(fmt.Sprintf("prompt: gonja has no %q filter", name))
		}
		m[name] = guardFilter(name, f)
	}
	// OrKa's filters and Jinja filters with Python behaviour.
	m["truncate"] = filterTruncate
	m["tojson"] = filterToJSON
	m["to_json_string"] = filterToJSONString
	m["default"] = filterDefault
	m["d"] = filterDefault
	m["safe_get"] = filterSafeGet
	m["format_loop_metadata"] = filterFormatLoopMetadata
	m["format"] = filterFormat
	m["string"] = filterString
	m["reverse"] = filterReverse
	m["items"] = filterItems
	return exec.NewFilterSet(m)
}

// arg returns positional argument i, or the keyword argument name.
func arg(params *exec.VarArgs, i int, name string) *exec.Value {
	if i < len(params.Args) {
		return params.Args[i]
	}
	if v, ok := params.KwArgs[name]; ok {
		return v
	}
	return nil
}

// guardFilter checks the arguments that size a filter's result before it runs
// and the size of what it returns.
func guardFilter(name string, f exec.FilterFunction) exec.FilterFunction {
	return func(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
		if in.IsError() {
			return in
		}
		in = gonjaView(in, name)
		if err := preCheckFilter(name, e, in, params); err != nil {
			return exec.AsValue(err)
		}
		out := f(e, in, params)
		if out == nil || out.IsError() {
			return out
		}
		switch {
		case out.IsString():
			if err := checkLen(e, len(out.String()), "filter "+name+" result"); err != nil {
				return exec.AsValue(err)
			}
		case out.IsList():
			if err := checkItems(out.Len(), "filter "+name+" result"); err != nil {
				return exec.AsValue(err)
			}
		}
		return out
	}
}

func preCheckFilter(name string, e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) error {
	intArgAt := func(i int, kw string) int {
		if v := arg(params, i, kw); v != nil && v.IsInteger() {
			return v.Integer()
		}
		return 0
	}
	switch name {
	case "center":
		return checkWidth(intArgAt(0, "width"), "center width")
	case "indent":
		return preCheckIndent(e, in, params)
	case "batch":
		return checkItems(intArgAt(0, "linecount"), "batch")
	case "slice":
		return checkItems(intArgAt(0, "slices"), "slice")
	case "replace":
		return preCheckReplace(e, in, params)
	case "join":
		return preCheckJoin(e, in, params)
	}
	return nil
}

// preCheckIndent bounds indent(width)'s width and result.
func preCheckIndent(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) error {
	w := arg(params, 0, "width")
	width := 4
	switch {
	case w != nil && w.IsInteger():
		width = w.Integer()
	case w != nil:
		width = len(w.String())
	}
	if err := checkWidth(width, "indent width"); err != nil {
		return err
	}
	return checkLen(e, len(pyStr(in))+strings.Count(pyStr(in), "\n")*max(width, 0), "indented string")
}

// preCheckReplace bounds replace(old, new, count)'s result.
func preCheckReplace(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) error {
	old := arg(params, 0, "old")
	repl := arg(params, 1, "new")
	if old == nil || repl == nil {
		return nil
	}
	s := pyStr(in)
	o, r := old.String(), repl.String()
	n := strings.Count(s, o)
	if c := arg(params, 2, "count"); c != nil && c.IsInteger() && c.Integer() >= 0 {
		n = min(n, c.Integer())
	}
	return checkLen(e, len(s)+n*max(len(r)-len(o), 0), "replaced string")
}

// preCheckJoin bounds join(d)'s result.
func preCheckJoin(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) error {
	n := 0
	if in.IsList() || in.IsDict() || in.IsString() {
		n = in.Len()
	}
	d := arg(params, 0, "d")
	if d == nil || n == 0 {
		return nil
	}
	return checkLen(e, (n-1)*len(pyStr(d)), "joined string")
}

// filterTruncate is OrKa's truncate(text, length=100, suffix="..."). Jinja's
// truncate(length, killwords, end, leeway) calls keep working: end is the
// suffix, killwords and leeway are ignored.
func filterTruncate(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	for k := range params.KwArgs {
		switch k {
		case "length", "suffix", "end", "killwords", "leeway":
		default:
			return errValue("unexpected keyword argument %q", k)
		}
	}
	suffix := arg(params, 1, "suffix")
	if suffix == nil {
		suffix = params.KwArgs["end"]
	}
	s, err := truncate(in, arg(params, 0, "length"), suffix)
	if err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(s)
}

// filterToJSON is tojson: compact JSON, non-ASCII kept, no HTML escaping
// (OrKa's override of Jinja's filter). tojson(indent=n) pretty-prints.
func filterToJSON(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	indent := 0
	if v := arg(params, 0, "indent"); given(v) {
		if !v.IsInteger() || v.Integer() < 0 || v.Integer() > 16 {
			return errValue("indent must be an integer between 0 and 16")
		}
		indent = v.Integer()
	}
	s, err := pyJSON(in, jsonCompact, indent)
	if err != nil {
		return exec.AsValue(err)
	}
	if err := checkLen(e, len(s), "JSON"); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsSafeValue(s)
}

// filterToJSONString is OrKa's to_json_string: json.dumps(v, ensure_ascii=False).
func filterToJSONString(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	s, err := pyJSON(in, jsonPython, 0)
	if err != nil {
		return exec.AsValue(err)
	}
	if err := checkLen(e, len(s), "JSON"); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(s)
}

// filterDefault is default(value, default_value="", boolean=false): undefined
// and None take the default; with boolean=true any falsy value does.
func filterDefault(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	def := arg(params, 0, "default_value")
	if def == nil {
		def = params.KwArgs["default"]
	}
	if def == nil {
		def = exec.AsValue("")
	}
	boolean := arg(params, 1, "boolean")
	if in.IsError() || in.IsNil() {
		return def
	}
	if boolean != nil && boolean.IsTrue() && !truthy(in) {
		return def
	}
	return in
}

// filterSafeGet is OrKa's safe_get filter: obj|safe_get(key, default="unknown").
func filterSafeGet(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	key := arg(params, 0, "key")
	if key == nil {
		return errValue("missing argument 'key'")
	}
	def := arg(params, 1, "default")
	if def == nil {
		def = exec.AsValue("unknown")
	}
	if in.IsError() || in.IsNil() {
		return def
	}
	k := pyStr(key)
	if isMapping(in) {
		if v, ok := mapGet(in, k); ok {
			return toValue(v)
		}
		return def
	}
	if v, ok := in.GetAttribute(k); ok && !v.IsError() {
		return v
	}
	return def
}

func filterFormatLoopMetadata(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	return exec.AsValue(loopMetadataText(in, arg(params, 0, "max_loops")))
}

// filterFormat is Jinja's format: "%s and %.2f"|format(a, b) with Python's
// printf-style semantics, or "%(name)s"|format(name=...).
func filterFormat(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if len(params.Args) > 0 && len(params.KwArgs) > 0 {
		return errValue("can't handle positional and keyword arguments at the same time")
	}
	var (
		s   string
		err error
	)
	if len(params.KwArgs) > 0 {
		named := map[string]any{}
		for k, v := range params.KwArgs {
			named[k] = unval(v)
		}
		s, err = pyFormat(e, pyStr(in), []any{named}, named)
	} else {
		args := make([]any, len(params.Args))
		for i, a := range params.Args {
			args[i] = a
		}
		s, err = pyFormat(e, pyStr(in), args, nil)
	}
	if err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(s)
}

// filterReverse is reverse: a list backwards, a string's characters backwards
// (gonja's sorts lists and reverses bytes), a mapping's keys backwards.
func filterReverse(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	switch {
	case in.IsString():
		rs := []rune(in.String())
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return exec.AsValue(string(rs))
	case isMapping(in):
		keys := mapKeys(in)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[len(keys)-1-i] = k
		}
		return exec.AsValue(out)
	case in.IsList():
		items := toList(in)
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
		return exec.AsValue(items)
	}
	return errValue("reverse expects a list, a string or a mapping, not %s", typeName(in))
}

// filterItems is items: (key, value) pairs of a mapping, in key order (a dict
// literal keeps its order).
func filterItems(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if in.IsNil() {
		return exec.AsValue([]any{})
	}
	if !isMapping(in) {
		return errValue("items requires a mapping, not %s", typeName(in))
	}
	keys := mapKeys(in)
	out := make([]any, len(keys))
	for i, k := range keys {
		v, _ := mapGet(in, k)
		out[i] = [2]*exec.Value{exec.AsValue(k), toValue(v)}
	}
	return exec.AsValue(out)
}

// filterString is Python's str().
func filterString(e *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	s := pyStr(in)
	if err := checkLen(e, len(s), "string"); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(s)
}
