package prompt

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nikolalohinski/gonja/v2/builtins"
	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/logging"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// environment holds what every template shares: configs, filters, tests,
// methods and the global functions. It is built once and never changed, so
// renders of any number of templates can share it concurrently.
type environment struct {
	lenient, strict *config.Config
	filters         *exec.FilterSet
	tests           *exec.TestSet
	methods         exec.Methods
	globals         *exec.Context  // helpers, range, dict, ... (read-only)
	globalMap       map[string]any // the same, for planned renders (plan.go)
	tagParsers      map[string]parser.ControlStructureParser
	// tpl is the gonja template object every render names (gonja's renderer
	// takes the loader of its evaluators from it), built from an empty source
	// once; loader refuses every read (see sourceLoader).
	tpl    *exec.Template
	loader *sourceLoader
}

var sharedEnv = sync.OnceValue(buildEnv)

// allowedTags are gonja's control structures a prompt may use.
var allowedTags = []string{
	"autoescape", "break", "call", "continue", "do", "filter", "for", "if",
	"macro", "raw", "set", "trans", "with",
}

// forbiddenTags explain themselves at parse time.
var forbiddenTags = map[string]string{
	"include": "{% include %} is not allowed in cogloop prompts: templates cannot load other templates",
	"import":  "{% import %} is not allowed in cogloop prompts: templates cannot load other templates",
	"from":    "{% from %} is not allowed in cogloop prompts: templates cannot load other templates",
	"extends": "{% extends %} is not allowed in cogloop prompts: templates cannot load other templates",
	"block":   "{% block %} is not allowed in cogloop prompts: there is no template inheritance",
}

func buildEnv() *environment {
	silenceGonja()
	lenient := config.New()
	strict := config.New()
	strict.StrictUndefined = true

	globalMap := map[string]any{}
	for name, fn := range globalFunctions() {
		globalMap[name] = fn
	}
	for name, fn := range helperFunctions() {
		globalMap[name] = fn
	}
	for name, fn := range opFunctions() {
		globalMap[name] = fn
	}
	globals := exec.EmptyContext()
	for name, fn := range globalMap {
		globals.Set(name, fn)
	}

	tagParsers := map[string]parser.ControlStructureParser{}
	for _, name := range allowedTags {
		p, ok := controlStructures.All.Get(name)
		if !ok {
			panic(fmt.Sprintf("prompt: gonja has no %q tag", name)) // a gonja upgrade removed it
		}
		tagParsers[name] = p
	}

	loader := &sourceLoader{id: rootID}
	tpl, err := exec.NewTemplate(rootID, lenient, loader, &exec.Environment{
		Context:           globals,
		Filters:           exec.NewFilterSet(nil),
		Tests:             exec.NewTestSet(nil),
		ControlStructures: exec.NewControlStructureSet(nil),
		Methods:           exec.Methods{},
	})
	if err != nil {
		panic(fmt.Sprintf("prompt: gonja cannot build an empty template: %v", err))
	}
	return &environment{
		tpl:        tpl,
		loader:     loader,
		lenient:    lenient,
		strict:     strict,
		filters:    buildFilters(),
		tests:      guardTests(builtins.Tests),
		methods:    buildMethods(),
		globals:    globals,
		globalMap:  globalMap,
		tagParsers: tagParsers,
	}
}

// silenceGonja turns gonja's logrus logging off (it is off by default, but it is
// a process-wide switch another package could have flipped).
func silenceGonja() { logging.SetEnabled(false) }

// globalFunctions are Jinja's global functions, minus lipsum and with a bounded
// range and an assignable namespace.
func globalFunctions() map[string]any {
	g := map[string]any{}
	for _, name := range []string{"cycler", "dict", "joiner", "_", "gettext", "ngettext"} {
		fn, ok := builtins.GlobalFunctions.Get(name)
		if !ok {
			panic(fmt.Sprintf("prompt: gonja has no %q global", name))
		}
		if f, ok := fn.(func(*exec.Evaluator, *exec.VarArgs) *exec.Value); ok {
			fn = guardGlobal(name, f)
		}
		g[name] = fn
	}
	g["range"] = rangeFunction
	g["namespace"] = namespaceFunction
	return g
}

// guardGlobal turns a panic of one of gonja's global functions (cycler()
// without arguments indexes an empty list) into an error.
func guardGlobal(name string, f opFunc) opFunc {
	return func(e *exec.Evaluator, va *exec.VarArgs) (out *exec.Value) {
		defer func() {
			if r := recover(); r != nil {
				out = errValue("%s(): invalid arguments (%v)", name, r)
			}
		}()
		return f(e, va)
	}
}

func (env *environment) config(strict bool) *config.Config {
	if strict {
		return env.strict
	}
	return env.lenient
}

// tagSet returns the control structures of one Parse call: gonja's parsers,
// wrapped so that errors get positions and the parsed structures are hardened
// (loop budgets, namespace-only assignment), plus refusals for forbidden tags.
// Only the tags toks can open are in it: gonja looks a tag up by the first name
// after {%, and a name that is no tag is missing from the set either way.
func (env *environment) tagSet(ps *parseState, toks []*tokens.Token) *exec.ControlStructureSet {
	m := map[string]parser.ControlStructureParser{}
	afterBegin := false
	for _, tok := range toks {
		switch tok.Type {
		case tokens.BlockBegin:
			afterBegin = true
		case tokens.Name:
			if !afterBegin {
				continue
			}
			afterBegin = false
			name := tok.Val
			if _, done := m[name]; done {
				continue
			}
			if inner, ok := env.tagParsers[name]; ok {
				m[name] = ps.wrapTag(name, inner)
			} else if msg, ok := forbiddenTags[name]; ok {
				m[name] = func(p *parser.Parser, _ *parser.Parser) (nodes.ControlStructure, error) {
					return nil, ps.errAt(ps.blockStart(p.Current()), msg)
				}
			}
		}
	}
	return exec.NewControlStructureSet(m)
}

// sourceLoader serves the (empty) source once, to gonja's template
// constructor, and refuses every other read: no template can load another one
// or a file.
type sourceLoader struct {
	id, src string
	served  atomic.Bool
}

func (l *sourceLoader) Read(name string) (io.Reader, error) {
	if name == l.id && l.served.CompareAndSwap(false, true) {
		return strings.NewReader(l.src), nil
	}
	return nil, fmt.Errorf("loading %q: templates cannot load other templates", name)
}

func (l *sourceLoader) Resolve(name string) (string, error) {
	if name == l.id {
		return name, nil
	}
	return "", fmt.Errorf("resolving %q: templates cannot load other templates", name)
}

func (l *sourceLoader) Inherit(string) (loaders.Loader, error) {
	return nil, fmt.Errorf("templates cannot load other templates")
}
