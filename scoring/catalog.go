package scoring

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/configs"
	"github.com/cogloop/cogloop/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// EnvDir names the environment variable whose directory [Default] overlays on
// the embedded presets.
const EnvDir = "COGLOOP_PRESETS_DIR"

// MaxFileBytes caps the size of one preset file.
const MaxFileBytes = 1 << 20

// Catalog is a set of contexts, each with its presets. The zero value is
// empty; build catalogs with [Embedded], [Default] and [Catalog.LoadDir]. A
// Catalog is immutable.
type Catalog struct {
	contexts []*Context          // sorted by name
	names    map[string]*Context // names and aliases
}

// Context is one scoring context of a catalog: its presets and what it judges.
type Context struct {
	// Name is the canonical name; Aliases are other names it answers to.
	Name    string
	Aliases []string
	// Description says what the context judges.
	Description string
	// Criteria lists the context's criteria with their descriptions (weights
	// zero), in file order; empty when the files list none.
	Criteria []Criterion
	// Presets are the levels, in file order.
	Presets []*Preset
	// Source is the file that defined the context (the last one that changed it).
	Source string
}

// Levels lists the preset names in order.
func (c *Context) Levels() []string {
	out := make([]string, len(c.Presets))
	for i, p := range c.Presets {
		out[i] = p.Level
	}
	return out
}

// Clone returns a copy of c that shares nothing mutable with it.
func (c *Context) Clone() *Context {
	q := *c
	q.Aliases = append([]string(nil), c.Aliases...)
	q.Criteria = append([]Criterion(nil), c.Criteria...)
	q.Presets = make([]*Preset, len(c.Presets))
	for i, p := range c.Presets {
		q.Presets[i] = p.Clone()
	}
	return &q
}

func (c *Context) description(key string) (string, bool) {
	for _, cr := range c.Criteria {
		if cr.Key == key {
			return cr.Description, true
		}
	}
	return "", false
}

var embedded = sync.OnceValues(func() (*Catalog, error) {
	return (&Catalog{}).LoadFS(configs.Presets, "presets", "configs/presets")
})

// Embedded returns the catalog of the presets shipped in configs/presets. It
// panics if they do not load, which a test of this package rules out.
func Embedded() *Catalog {
	c, err := embedded()
	if err != nil {
		panic(fmt.Sprintf("scoring: the embedded presets do not load: %v", err))
	}
	return c
}

var (
	dirMu    sync.Mutex
	dirCache = map[string]dirResult{}
)

type dirResult struct {
	c   *Catalog
	err error
}

// Default returns [Embedded] overlaid with the directory named by
// $COGLOOP_PRESETS_DIR when that is set. The directory is read once per
// process and value of the variable.
func Default() (*Catalog, error) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		return Embedded(), nil
	}
	dirMu.Lock()
	defer dirMu.Unlock()
	if r, ok := dirCache[dir]; ok {
		return r.c, r.err
	}
	c, err := Embedded().LoadDir(dir)
	if err != nil {
		err = fmt.Errorf("presets directory $%s: %w", EnvDir, err)
	}
	dirCache[dir] = dirResult{c, err}
	return c, err
}

// Contexts returns the contexts sorted by name (copies).
func (c *Catalog) Contexts() []*Context {
	out := make([]*Context, len(c.contexts))
	for i, x := range c.contexts {
		out[i] = x.Clone()
	}
	return out
}

// Context returns the context called name (or with name as an alias); ""
// means [DefaultContext]. An unknown name is a *[LookupError] listing the
// known names.
func (c *Catalog) Context(name string) (*Context, error) {
	x, err := c.context(name)
	if err != nil {
		return nil, err
	}
	return x.Clone(), nil
}

func (c *Catalog) context(name string) (*Context, error) {
	if name == "" {
		name = DefaultContext
	}
	if x, ok := c.names[strings.ToLower(strings.TrimSpace(name))]; ok {
		return x, nil
	}
	return nil, &LookupError{Err: ErrUnknownContext, Name: name, Known: c.knownContexts()}
}

func (c *Catalog) knownContexts() []string {
	var out []string
	for _, x := range c.contexts {
		s := x.Name
		if len(x.Aliases) > 0 {
			s += " (also " + strings.Join(x.Aliases, ", ") + ")"
		}
		out = append(out, s)
	}
	return out
}

// Levels lists the preset names of context ("" means [DefaultContext]) in
// order; nil when the context is unknown.
func (c *Catalog) Levels(context string) []string {
	x, err := c.context(context)
	if err != nil {
		return nil
	}
	return x.Levels()
}

// Preset returns preset level of context ("" means [DefaultContext]). Unknown
// names are *[LookupError]s listing the known ones.
func (c *Catalog) Preset(context, level string) (*Preset, error) {
	x, err := c.context(context)
	if err != nil {
		return nil, err
	}
	want := strings.ToLower(strings.TrimSpace(level))
	for _, p := range x.Presets {
		if p.Level == want {
			return p.Clone(), nil
		}
	}
	return nil, &LookupError{Err: ErrUnknownPreset, Name: level, Context: x.Name, Known: x.Levels()}
}

// ContextsWith returns the names of the contexts, in name order, whose preset
// level has a criterion for every key ("safety.no_harm"): where custom weights
// with these keys fit. A loop's scoring without context uses it to find the
// one context its custom_weights were written for.
func (c *Catalog) ContextsWith(level string, keys []string) []string {
	want := strings.ToLower(strings.TrimSpace(level))
	var out []string
	for _, x := range c.contexts {
		for _, p := range x.Presets {
			if p.Level != want {
				continue
			}
			have := map[string]bool{}
			for _, k := range p.Keys() {
				have[k] = true
			}
			all := true
			for _, k := range keys {
				all = all && have[strings.ToLower(strings.TrimSpace(k))]
			}
			if all {
				out = append(out, x.Name)
			}
		}
	}
	return out
}

// Presets returns every preset, by context name and then in file order (copies).
func (c *Catalog) Presets() []*Preset {
	var out []*Preset
	for _, x := range c.contexts {
		for _, p := range x.Presets {
			out = append(out, p.Clone())
		}
	}
	return out
}

// Calculator builds the calculator of preset level of context with custom
// weights (see [NewCalculator]).
func (c *Catalog) Calculator(context, level string, custom map[string]float64) (*Calculator, error) {
	p, err := c.Preset(context, level)
	if err != nil {
		return nil, err
	}
	return NewCalculator(p, custom)
}

// LoadDir returns c overlaid with the *.yaml and *.yml files of dir (not its
// subdirectories), read in name order. A context the files define again keeps
// its other presets, takes the file's description and criteria descriptions,
// and has every preset the file defines replaced. Problems are reported
// together in a *[load.Error] with file:line:col.
func (c *Catalog) LoadDir(dir string) (*Catalog, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("read presets directory: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("presets directory %s is not a directory", dir)
	}
	return c.LoadFS(os.DirFS(dir), ".", dir)
}

// LoadFS is [Catalog.LoadDir] over directory dir of fsys; label replaces dir
// in the file names of messages.
func (c *Catalog) LoadFS(fsys fs.FS, dir, label string) (*Catalog, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read presets directory %s: %w", label, err)
	}
	var files []presetFile
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || (!strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml")) {
			continue
		}
		data, err := readLimited(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("read preset file %s: %w", filepath.Join(label, name), err)
		}
		files = append(files, presetFile{name: filepath.Join(label, name), data: data})
	}
	return c.overlay(files)
}

// Parse returns c overlaid with one preset file's contents; name is used in
// messages.
func (c *Catalog) Parse(name string, data []byte) (*Catalog, error) {
	return c.overlay([]presetFile{{name: name, data: data}})
}

func readLimited(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	return data, nil
}

type presetFile struct {
	name string
	data []byte
}

// overlay parses files and merges them over c, checking everything.
func (c *Catalog) overlay(files []presetFile) (*Catalog, error) {
	r := &reader{}
	byName := map[string]*Context{}
	for _, x := range c.contexts {
		byName[x.Name] = x.Clone()
	}
	definedIn := map[string]string{}
	for _, f := range files {
		r.file = f.name
		def := r.parse(f.data)
		if def == nil {
			continue
		}
		if prev, dup := definedIn[def.name]; dup {
			r.errorf(def.nameNode, "context %q is defined again (first in %s); put each context in one file", def.name, prev)
			continue
		}
		definedIn[def.name] = f.name
		r.merge(byName, def)
	}
	out := &Catalog{names: map[string]*Context{}}
	for _, x := range byName {
		out.contexts = append(out.contexts, x)
	}
	sort.Slice(out.contexts, func(i, j int) bool { return out.contexts[i].Name < out.contexts[j].Name })
	for _, x := range out.contexts {
		out.names[x.Name] = x
	}
	for _, x := range out.contexts {
		for _, a := range x.Aliases {
			if other, ok := out.names[a]; ok && other != x {
				r.problems = append(r.problems, load.Problem{Pos: load.Pos{File: x.Source}, Msg: fmt.Sprintf("context %s: alias %q is already the name or an alias of context %s", x.Name, a, other.Name)})
				continue
			}
			out.names[a] = x
		}
	}
	if len(r.problems) > 0 {
		return nil, &load.Error{Problems: r.problems, What: "problems in scoring presets"}
	}
	return out, nil
}

// reader parses preset files, collecting problems with positions.
type reader struct {
	file     string
	problems []load.Problem
}

func (r *reader) errorf(n *yaml.Node, format string, args ...any) {
	p := load.Problem{Pos: load.Pos{File: r.file}, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		p.Pos.Line, p.Pos.Col = n.Line, n.Column
	}
	r.problems = append(r.problems, p)
}

// contextDef is one parsed file.
type contextDef struct {
	name        string
	nameNode    *yaml.Node
	description *string
	aliases     []string
	criteria    []Criterion
	presets     []presetDef
	failed      bool // a preset was rejected (its problems are reported)
}

type presetDef struct {
	p           *Preset
	node        *yaml.Node // the level key
	weightsNode *yaml.Node // the weights key
	weightNodes map[string]*yaml.Node
}

// field is one key of a mapping, with its key and value nodes.
type field struct {
	key, val *yaml.Node
}

// fields reads a mapping's keys, reporting duplicates and keys outside allowed
// (nil allows any key).
func (r *reader) fields(n *yaml.Node, what string, allowed ...string) (map[string]field, []string) {
	out := map[string]field{}
	var order []string
	n = yamlnode.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		r.errorf(n, "%s must be a mapping, not %s", what, yamlnode.KindName(n))
		return out, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], yamlnode.Resolve(n.Content[i+1])
		if k.Value == "<<" {
			r.errorf(k, "%s: merge keys (<<) are not supported in preset files", what)
			continue
		}
		if _, dup := out[k.Value]; dup {
			r.errorf(k, "%s: key %q appears twice", what, k.Value)
			continue
		}
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			r.errorf(k, "%s: unknown key %q (known keys: %s)", what, k.Value, strings.Join(allowed, ", "))
			continue
		}
		out[k.Value] = field{key: k, val: v}
		order = append(order, k.Value)
	}
	return out, order
}

func (r *reader) text(f field, what string) (string, bool) {
	if f.val == nil || f.val.Kind != yaml.ScalarNode || f.val.Tag == "!!null" {
		r.errorf(f.val, "%s must be text, not %s", what, yamlnode.KindName(f.val))
		return "", false
	}
	return strings.TrimSpace(f.val.Value), true
}

func (r *reader) number(f field, what string) (float64, bool) {
	if f.val == nil || f.val.Kind != yaml.ScalarNode || f.val.Tag == "!!null" {
		r.errorf(f.val, "%s must be a number, not %s", what, yamlnode.KindName(f.val))
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(f.val.Value), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		r.errorf(f.val, "%s must be a number, not %q", what, f.val.Value)
		return 0, false
	}
	return v, true
}

// parse reads one file into a contextDef; nil when it is unusable.
func (r *reader) parse(data []byte) *contextDef {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			r.errorf(nil, "preset file is empty; it needs context and presets")
			return nil
		}
		p := load.YAMLProblem(r.file, err)
		p.Msg = "invalid YAML: " + p.Msg
		r.problems = append(r.problems, p)
		return nil
	}
	top, _ := r.fields(&doc, "preset file", "context", "aliases", "description", "criteria", "presets")
	def := r.header(&doc, top)
	f, ok := top["presets"]
	if !ok {
		if def.nameNode != nil {
			r.errorf(yamlnode.Resolve(&doc), "context %s: presets is missing (presets: {strict: {...}, moderate: {...}, ...})", def.name)
		}
		return nil
	}
	levels, order := r.fields(f.val, "presets")
	if len(order) == 0 && f.val != nil && f.val.Kind == yaml.MappingNode {
		r.errorf(f.key, "presets is empty")
	}
	for _, level := range order {
		if pd, ok := r.preset(def.name, level, levels[level]); ok {
			def.presets = append(def.presets, pd)
		} else {
			def.failed = true
		}
	}
	if def.name == "" {
		return nil
	}
	return def
}

// header reads what a preset file says besides its presets: the context's
// name, description, aliases and criteria.
func (r *reader) header(doc *yaml.Node, top map[string]field) *contextDef {
	def := &contextDef{}
	if f, ok := top["context"]; ok {
		if name, ok := r.text(f, "context"); ok {
			if !validName(name) {
				r.errorf(f.val, "context %q must be a lower-case name (letters, digits, _)", name)
			}
			def.name, def.nameNode = name, f.val
		}
	} else {
		r.errorf(yamlnode.Resolve(doc), "preset file needs a context: the name presets are looked up by (loop_convergence, quality, ...)")
	}
	if f, ok := top["description"]; ok {
		if s, ok := r.text(f, "description"); ok {
			def.description = &s
		}
	}
	if f, ok := top["aliases"]; ok {
		def.aliases = r.aliases(f)
	}
	if f, ok := top["criteria"]; ok {
		m, order := r.fields(f.val, "criteria")
		for _, k := range order {
			if !validKey(k) {
				r.errorf(m[k].key, "criteria: %q is not of the form dimension.criterion (lower case, digits, _)", k)
				continue
			}
			desc, _ := r.text(m[k], "criteria: "+k)
			def.criteria = append(def.criteria, Criterion{Key: k, Description: desc})
		}
	}
	return def
}

func (r *reader) aliases(f field) []string {
	n := f.val
	var items []*yaml.Node
	switch {
	case n != nil && n.Kind == yaml.ScalarNode:
		items = []*yaml.Node{n}
	case n != nil && n.Kind == yaml.SequenceNode:
		items = n.Content
	default:
		r.errorf(n, "aliases must be a list of names, not %s", yamlnode.KindName(n))
		return nil
	}
	var out []string
	for _, it := range items {
		it = yamlnode.Resolve(it)
		if it.Kind != yaml.ScalarNode || !validName(it.Value) {
			r.errorf(it, "alias %s must be a lower-case name (letters, digits, _)", yamlnode.KindName(it))
			continue
		}
		out = append(out, it.Value)
	}
	return out
}

func (r *reader) preset(context, level string, f field) (presetDef, bool) {
	what := "preset " + context + "/" + level
	if !validLevel(level) {
		r.errorf(f.key, "preset name %q must be lower case (letters, digits, _ and -)", level)
		return presetDef{}, false
	}
	m, _ := r.fields(f.val, what, "description", "instruction", "approved", "needs_improvement", "weights")
	line := 0
	if f.key != nil {
		line = f.key.Line
	}
	pd := presetDef{
		p:           &Preset{Context: context, Level: level, Source: fmt.Sprintf("%s:%d", r.file, line)},
		node:        f.key,
		weightNodes: map[string]*yaml.Node{},
	}
	if d, has := m["description"]; has {
		pd.p.Description, _ = r.text(d, what+": description")
	}
	if d, has := m["instruction"]; has {
		pd.p.Instruction, _ = r.text(d, what+": instruction")
	}
	ok := r.thresholds(pd.p, what, f, m)
	wf, has := m["weights"]
	if !has {
		r.errorf(f.key, "%s: weights is missing (dimension.criterion: weight, summing to 1)", what)
		return pd, false
	}
	return pd, r.weights(&pd, what, wf) && ok
}

// thresholds reads a preset's approved and needs_improvement into p.
func (r *reader) thresholds(p *Preset, what string, f field, m map[string]field) bool {
	ok := true
	for _, t := range []struct {
		key string
		dst *float64
	}{{"approved", &p.Approved}, {"needs_improvement", &p.NeedsImprovement}} {
		tf, has := m[t.key]
		if !has {
			r.errorf(f.key, "%s: %s is missing (a threshold between 0 and 1)", what, t.key)
			ok = false
			continue
		}
		v, good := r.number(tf, what+": "+t.key)
		ok = ok && good
		*t.dst = v
	}
	if ok {
		if err := checkThresholds(p.Approved, p.NeedsImprovement); err != nil {
			r.errorf(m["needs_improvement"].key, "%s: %v", what, err)
			ok = false
		}
	}
	return ok
}

// weights reads a preset's weights into pd: each a dimension.criterion key,
// summing to 1.
func (r *reader) weights(pd *presetDef, what string, wf field) bool {
	pd.weightsNode = wf.key
	weights, order := r.fields(wf.val, what+": weights")
	if len(order) == 0 {
		r.errorf(wf.key, "%s: weights is empty", what)
		return false
	}
	sum, good := 0.0, true
	for _, k := range order {
		w := weights[k]
		if !validKey(k) {
			r.errorf(w.key, "%s: weight key %q is not of the form dimension.criterion (lower case, digits, _)", what, k)
			good = false
			continue
		}
		v, isNum := r.number(w, what+": weight of "+k)
		if !isNum {
			good = false
			continue
		}
		if err := checkWeight(v); err != nil {
			r.errorf(w.val, "%s: weight of %s: %v", what, k, err)
			good = false
			continue
		}
		sum += v
		pd.weightNodes[k] = w.key
		pd.p.Criteria = append(pd.p.Criteria, Criterion{Key: k, Weight: v})
	}
	if good && math.Abs(sum-1) > SumTolerance {
		r.errorf(wf.key, "%s: weights sum to %s, not 1 (±%g)", what, fmtWeight(sum), SumTolerance)
		good = false
	}
	return good
}

// merge puts def over byName[def.name], checking weights against the merged
// criteria list.
func (r *reader) merge(byName map[string]*Context, def *contextDef) {
	x, ok := byName[def.name]
	if !ok {
		x = &Context{Name: def.name}
	}
	x.Source = r.file
	if def.description != nil {
		x.Description = *def.description
	}
	for _, a := range def.aliases {
		if !slices.Contains(x.Aliases, a) && a != x.Name {
			x.Aliases = append(x.Aliases, a)
		}
	}
	x.mergeCriteria(def.criteria)
	for _, pd := range def.presets {
		if r.weightsKnown(x, pd) {
			x.mergePreset(pd.p)
		}
	}
	if len(x.Presets) == 0 {
		if !def.failed {
			r.errorf(def.nameNode, "context %s has no usable preset", x.Name)
		}
		return
	}
	byName[x.Name] = x
}

// mergeCriteria adds criteria to x; one x has already gets the new description.
func (x *Context) mergeCriteria(criteria []Criterion) {
	for _, cr := range criteria {
		replaced := false
		for i := range x.Criteria {
			if x.Criteria[i].Key == cr.Key {
				x.Criteria[i].Description = cr.Description
				replaced = true
			}
		}
		if !replaced {
			x.Criteria = append(x.Criteria, cr)
		}
	}
}

// weightsKnown reports whether every weight of pd names a criterion of x (a
// context without criteria takes any), recording a problem for each that
// does not.
func (r *reader) weightsKnown(x *Context, pd presetDef) bool {
	if len(x.Criteria) == 0 {
		return true
	}
	good := true
	for _, cr := range pd.p.Criteria {
		if _, known := x.description(cr.Key); !known {
			r.errorf(pd.weightNodes[cr.Key], "preset %s: %q is not a criterion of context %s (criteria: %s)",
				pd.p.Name(), cr.Key, x.Name, strings.Join(keysOf(x.Criteria), ", "))
			good = false
		}
	}
	return good
}

// mergePreset puts p, its criteria described by x's, in place of x's preset
// of the same level, or adds it.
func (x *Context) mergePreset(p *Preset) {
	for i := range p.Criteria {
		p.Criteria[i].Description, _ = x.description(p.Criteria[i].Key)
	}
	for i, old := range x.Presets {
		if old.Level == p.Level {
			x.Presets[i] = p
			return
		}
	}
	x.Presets = append(x.Presets, p)
}

func keysOf(cs []Criterion) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Key
	}
	return out
}

func validLevel(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
