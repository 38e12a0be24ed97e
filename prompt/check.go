package prompt

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/internal/textdist"
)

// Checking names: undefined functions, filters and tests are errors (the
// render fails); variables and agent outputs nobody provides are warnings
// (they render empty). What a template can see depends on where it renders,
// which the caller describes with a [Scope].

// alwaysBound are the variables every render binds (see bind): input and
// previous_outputs.
var alwaysBound = []string{"input", "previous_outputs"}

// knownNames are the functions, filters and tests templates can use, read
// from the shared environment where they are registered.
type knownNames struct {
	funcs, filters, tests          map[string]bool
	funcList, filterList, testList []string
}

var known = sync.OnceValue(func() *knownNames {
	env := sharedEnv()
	k := &knownNames{}
	k.funcs, k.funcList = mapKeysOf(env.globals, "data")
	k.filters, k.filterList = mapKeysOf(env.filters, "filters")
	k.tests, k.testList = mapKeysOf(env.tests, "tests")
	return k
})

// mapKeysOf reads the keys of the map in the unexported field of one of
// gonja's registries (a Context, FilterSet or TestSet has no listing method).
// Internal names (with a NUL byte) are left out.
func mapKeysOf(registry any, field string) (map[string]bool, []string) {
	set := map[string]bool{}
	var list []string
	f := reflect.ValueOf(registry).Elem().FieldByName(field)
	if f.Kind() != reflect.Map {
		panic(fmt.Sprintf("prompt: gonja's %T has no map %q", registry, field)) // a gonja upgrade changed it
	}
	for _, key := range f.MapKeys() {
		name := key.String()
		if strings.HasPrefix(name, "\x00") {
			continue
		}
		set[name] = true
		list = append(list, name)
	}
	sort.Strings(list)
	return set, list
}

// Scope is what a template sees where it renders.
type Scope struct {
	// Vars are the variables bound there besides input, previous_outputs and
	// the helper functions (loop_number, score, input mapping targets, ...).
	Vars []string
	// CheckOutputs turns on the check of previous_outputs ids against Agents.
	CheckOutputs bool
	// Agents are the ids previous_outputs can hold there.
	Agents []string
	// Absent, when set, explains why an id that Agents lacks is absent there
	// ("it runs after this agent"); "" for no explanation.
	Absent func(id string) string
}

// Finding is one undefined name.
type Finding struct {
	Name
	// Error is set for an undefined function, filter or test: rendering
	// fails there. Undefined variables and outputs are warnings: they render
	// empty.
	Error bool
	// Msg says what is wrong, with the suggestion when there is one.
	Msg string
	// Suggestion is the closest defined name, or "".
	Suggestion string
}

// Fix is the finding's advice ("did you mean get_input?"), or "".
func (f Finding) Fix() string {
	if f.Suggestion == "" {
		return ""
	}
	return "did you mean " + f.Suggestion + "?"
}

// Check reports the undefined names among names: functions, filters and
// tests always; with a non-nil scope also unguarded variables it does not
// bind and, when s.CheckOutputs, agent ids previous_outputs cannot hold.
func Check(names []Name, s *Scope) []Finding {
	k := known()
	var out []Finding
	var vars, agents nameSet
	if s != nil {
		vars.lists = [2][]string{alwaysBound, s.Vars}
		agents.lists = [2][]string{s.Agents}
	}
	var reported map[Name]bool
	for _, n := range names {
		var f Finding
		var bad bool
		switch n.Kind {
		case NameFunc, NameFilter, NameTest:
			f, bad = k.callable(n, &vars)
		case NameVar:
			bad = s != nil && !n.Guarded && !vars.has(n.Name) && !k.funcs[n.Name]
			if bad {
				f = Finding{Name: n, Suggestion: closest(n.Name, vars.sorted()),
					Msg: fmt.Sprintf("undefined variable %q renders empty", n.Name)}
			}
		case NameOutput:
			f, bad = s.output(n, &agents)
		}
		key := Name{Kind: n.Kind, Name: n.Name}
		if !bad || reported[key] {
			continue // once per name and kind
		}
		if reported == nil {
			reported = map[Name]bool{}
		}
		reported[key] = true
		if fix := f.Fix(); fix != "" {
			f.Msg += "; " + fix
		}
		out = append(out, f)
	}
	return out
}

// callable checks a function, filter or test name: bad when it is none that
// templates have (a function may also be a variable the scope binds).
func (k *knownNames) callable(n Name, vars *nameSet) (f Finding, bad bool) {
	set, list := k.funcs, k.funcList
	switch n.Kind {
	case NameFilter:
		set, list = k.filters, k.filterList
	case NameTest:
		set, list = k.tests, k.testList
	}
	if set[n.Name] || n.Kind == NameFunc && vars.has(n.Name) {
		return Finding{}, false
	}
	f = Finding{Name: n, Error: true, Suggestion: closest(n.Name, list)}
	switch n.Kind {
	case NameFunc:
		f.Msg = fmt.Sprintf("undefined function %s()", n.Name)
	case NameFilter:
		f.Msg = fmt.Sprintf("undefined filter %q", n.Name)
	case NameTest:
		f.Msg = fmt.Sprintf("undefined test %q", n.Name)
	}
	return f, true
}

// output checks previous_outputs.<agent>: bad when the scope checks outputs
// and no agent of that id can have run before.
func (s *Scope) output(n Name, agents *nameSet) (f Finding, bad bool) {
	if s == nil || !s.CheckOutputs || n.Guarded || agents.has(n.Name) {
		return Finding{}, false
	}
	f = Finding{Name: n, Suggestion: closest(n.Name, s.Agents),
		Msg: fmt.Sprintf("previous_outputs has no %q here: no agent %q can have run before this one", n.Name, n.Name)}
	if s.Absent != nil {
		if why := s.Absent(n.Name); why != "" {
			f.Msg += " (" + why + ")"
		}
	}
	return f, true
}

// Undefined returns the undefined function, filter or test that made a
// render of t fail with err; ok is false when err has another cause. Such a
// render can never succeed: callers treat it as fatal.
func (t *Template) Undefined(err error) (Finding, bool) {
	if err == nil {
		return Finding{}, false
	}
	msg := err.Error()
	for _, f := range Check(t.Names(), nil) {
		var sign string
		switch f.Kind {
		case NameFunc:
			sign = f.Name.Name + " is not callable"
		case NameFilter:
			sign = "filter '" + f.Name.Name + "' not found"
		case NameTest:
			sign = "test '" + f.Name.Name + "' not found"
		}
		if sign != "" && strings.Contains(msg, sign) {
			return f, true
		}
	}
	return Finding{}, false
}

// nameSet is the union of a few lists of names, for membership tests. A
// template asks about a handful of names while a scope can bind hundreds
// (every agent of a large workflow): the lists are scanned until enough
// questions make a map worth building.
type nameSet struct {
	lists [2][]string
	asked int
	m     map[string]bool
}

// scanLimit is how many questions are answered by scanning the lists
// before they are indexed.
const scanLimit = 8

func (s *nameSet) has(name string) bool {
	if s.m == nil {
		if s.asked++; s.asked <= scanLimit {
			return slices.Contains(s.lists[0], name) || slices.Contains(s.lists[1], name)
		}
		s.m = make(map[string]bool, len(s.lists[0])+len(s.lists[1]))
		for _, l := range s.lists {
			for _, v := range l {
				s.m[v] = true
			}
		}
	}
	return s.m[name]
}

// sorted returns the names, each once, in order.
func (s *nameSet) sorted() []string {
	var out []string
	for _, l := range s.lists {
		out = append(out, l...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// closest returns the candidate nearest to name by edit distance, when it is
// near enough to be a typo (a third of the name's length, at least 1, at most
// 3 edits; a transposition counts as one); "" otherwise.
func closest(name string, candidates []string) string {
	limit := min(max(len(name)/3, 1), 3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d := textdist.Typo(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
