package load

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cogloop/cogloop/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// Config reads the keys of one YAML mapping (an agent definition, or a block inside
// one), reporting every problem with its file position to a shared [Problems]. It
// remembers which keys were read, so [Config.Done] can call every other key unknown.
// Read methods never fail: a bad value records a problem and returns the default.
type Config struct {
	file  string
	node  *yaml.Node
	probs *Problems
	keys  map[string]*yaml.Node // key → key node
	vals  map[string]*yaml.Node // key → value node (aliases resolved)
	order []string
	known map[string]bool
	what  string
	done  bool
	spec  *Spec // recording mode (spec.go)
}

// NewConfig reads node, which must be a mapping; what names it in messages
// ("agent \"scorer\"", "orchestrator"). A non-mapping node is recorded as a problem
// and gives an empty Config.
func NewConfig(file string, node *yaml.Node, what string, probs *Problems) *Config {
	c := &Config{file: file, node: node, probs: probs, what: what,
		keys: map[string]*yaml.Node{}, vals: map[string]*yaml.Node{}, known: map[string]bool{}}
	n := Resolve(node)
	if n == nil {
		return c
	}
	if n.Kind != yaml.MappingNode {
		probs.Errorf(c.PosOf(n), "%s must be a mapping, not %s", what, KindName(n))
		return c
	}
	c.addMapping(n, 0)
	return c
}

// addMapping records n's keys. Explicit keys win over keys merged in with "<<",
// whatever their order, as YAML's merge-key rule says.
func (c *Config) addMapping(n *yaml.Node, depth int) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], Resolve(n.Content[i+1])
		if k.Value == "<<" && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if _, dup := c.keys[k.Value]; dup {
			if depth == 0 {
				c.probs.Errorf(c.PosOf(k), "%s: key %q appears twice", c.what, k.Value)
			}
			continue
		}
		c.keys[k.Value] = k
		c.vals[k.Value] = v
		c.order = append(c.order, k.Value)
	}
	if depth >= 8 {
		return
	}
	for _, v := range merges {
		switch v.Kind {
		case yaml.MappingNode:
			c.addMapping(v, depth+1)
		case yaml.SequenceNode:
			for _, m := range v.Content {
				if m = Resolve(m); m.Kind == yaml.MappingNode {
					c.addMapping(m, depth+1)
				}
			}
		}
	}
}

// Resolve follows alias nodes and unwraps document nodes.
func Resolve(n *yaml.Node) *yaml.Node { return yamlnode.Resolve(n) }

// KindName names a node's kind for messages.
func KindName(n *yaml.Node) string { return yamlnode.KindName(n) }

// File is the file the config comes from.
func (c *Config) File() string { return c.file }

// Problems is where this config records problems.
func (c *Config) Problems() *Problems { return c.probs }

// What names the config in messages.
func (c *Config) What() string { return c.what }

// PosOf returns the position of any node of this file.
func (c *Config) PosOf(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: c.file}
	}
	return Pos{File: c.file, Line: n.Line, Col: n.Column}
}

// Pos is the position of the mapping itself.
func (c *Config) Pos() Pos { return c.PosOf(c.node) }

// KeyPos is the position of key (of the mapping when the key is absent).
func (c *Config) KeyPos(key string) Pos {
	if k, ok := c.keys[key]; ok {
		return c.PosOf(k)
	}
	return c.Pos()
}

// ValuePos is the position of key's value (of the mapping when absent).
func (c *Config) ValuePos(key string) Pos {
	if v, ok := c.vals[key]; ok {
		return c.PosOf(v)
	}
	return c.Pos()
}

// Errorf records an error at key's position (the mapping's when key is "").
func (c *Config) Errorf(key, format string, args ...any) {
	c.probs.Errorf(c.KeyPos(key), "%s: %s", c.what, fmt.Sprintf(format, args...))
}

// Warnf records a warning at key's position.
func (c *Config) Warnf(key, format string, args ...any) {
	c.probs.Warnf(c.KeyPos(key), "%s: %s", c.what, fmt.Sprintf(format, args...))
}

// Has reports whether key is present (and marks it known).
func (c *Config) Has(key string) bool {
	if c.spec != nil {
		c.record(key, "any", nil)
		return true
	}
	c.known[key] = true
	_, ok := c.vals[key]
	return ok
}

// Known reports whether key has been asked for by a read method (present or
// not), or accepted or ignored: whether the key is someone's. A builder uses it
// to leave a common key (retry) to a factory that reads it itself.
func (c *Config) Known(key string) bool { return c.known[key] }

// Node returns key's value node (aliases resolved), or nil; the key becomes known.
func (c *Config) Node(key string) *yaml.Node {
	if c.spec != nil {
		c.record(key, "any", nil)
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	c.known[key] = true
	return c.vals[key]
}

// Peek returns key's value node (nil when absent) without reading the key:
// it stays unknown unless a read method asks for it, and a recording config
// records nothing. For looking at other types' keys (a graph-scout reads every
// agent's prompt and model as hints).
func (c *Config) Peek(key string) *yaml.Node {
	if c.spec != nil {
		return nil
	}
	return Resolve(c.vals[key])
}

func (c *Config) scalar(key, want string) (*yaml.Node, bool) {
	v := c.Node(key)
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return nil, false
	}
	if v.Kind != yaml.ScalarNode {
		c.Errorf(key, "%s must be %s, not %s", key, want, KindName(v))
		return nil, false
	}
	return v, true
}

// String reads a scalar as text.
func (c *Config) String(key, def string) string {
	if c.spec != nil {
		c.record(key, "string", nilIfZero(def))
		return def
	}
	v, ok := c.scalar(key, "text")
	if !ok {
		return def
	}
	return v.Value
}

// TextOrNumber is [Config.String] for a key whose values are words or numbers
// (jitter: full | 0.1); the schema records it as either.
func (c *Config) TextOrNumber(key, def string) string {
	if c.spec != nil {
		c.record(key, "text_or_number", nilIfZero(def))
		return def
	}
	return c.String(key, def)
}

// Strings reads a list of scalars; a single scalar is a one-item list.
func (c *Config) Strings(key string) []string {
	if c.spec != nil {
		c.record(key, "strings", nil)
		return nil
	}
	v := c.Node(key)
	if v == nil || v.Tag == "!!null" {
		return nil
	}
	if v.Kind == yaml.ScalarNode {
		return []string{v.Value}
	}
	if v.Kind != yaml.SequenceNode {
		c.Errorf(key, "%s must be a list of text, not %s", key, KindName(v))
		return nil
	}
	out := make([]string, 0, len(v.Content))
	for _, it := range v.Content {
		it = Resolve(it)
		if it.Kind != yaml.ScalarNode {
			c.probs.Errorf(c.PosOf(it), "%s: %s items must be text, not %s", c.what, key, KindName(it))
			continue
		}
		out = append(out, it.Value)
	}
	return out
}

// Int reads an integer within [min, max].
func (c *Config) Int(key string, def, min, max int) int {
	if c.spec != nil {
		c.record(key, "int", def).rangeOf(float64(min), float64(max))
		return def
	}
	v, ok := c.scalar(key, "a whole number")
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v.Value))
	if err != nil {
		f, ferr := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
		if ferr != nil || f != math.Trunc(f) {
			c.Errorf(key, "%s must be a whole number, not %q", key, v.Value)
			return def
		}
		n = int(f)
	}
	if n < min || n > max {
		c.Errorf(key, "%s must be between %d and %d, not %d", key, min, max, n)
		return def
	}
	return n
}

// Float reads a number within [min, max].
func (c *Config) Float(key string, def, min, max float64) float64 {
	if c.spec != nil {
		var d any
		if !math.IsNaN(def) && !math.IsInf(def, 0) {
			d = def
		}
		c.record(key, "float", d).rangeOf(min, max)
		return def
	}
	v, ok := c.scalar(key, "a number")
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
	if err != nil || math.IsNaN(f) {
		c.Errorf(key, "%s must be a number, not %q", key, v.Value)
		return def
	}
	if f < min || f > max {
		c.Errorf(key, "%s must be between %g and %g, not %g", key, min, max, f)
		return def
	}
	return f
}

// Bool reads true/false (also yes/no, on/off).
func (c *Config) Bool(key string, def bool) bool {
	if c.spec != nil {
		c.record(key, "bool", def)
		return def
	}
	v, ok := c.scalar(key, "true or false")
	if !ok {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(v.Value)) {
	case "true", "yes", "on":
		return true
	case "false", "no", "off":
		return false
	}
	c.Errorf(key, "%s must be true or false, not %q", key, v.Value)
	return def
}

// Duration reads a duration: a number is seconds; text is a Go duration ("1m30s")
// or an ISO-8601 one ("PT5S"). Negative durations are errors.
func (c *Config) Duration(key string, def time.Duration) time.Duration {
	if c.spec != nil {
		var d any
		if def > 0 {
			d = def.String()
		}
		c.record(key, "duration", d)
		return def
	}
	v, ok := c.scalar(key, "a duration")
	if !ok {
		return def
	}
	d, err := ParseDuration(v.Value)
	if err != nil {
		c.Errorf(key, "%s: %v", key, err)
		return def
	}
	return d
}

// Map returns key's value as a nested Config, or nil when absent. The nested
// config's unknown keys are checked when its own Done is called.
func (c *Config) Map(key string) *Config {
	if c.spec != nil {
		return c.recordMap(key)
	}
	v := c.Node(key)
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return nil
	}
	return NewConfig(c.file, v, fmt.Sprintf("%s: %s", c.what, key), c.probs)
}

// Decode decodes key's value into out with yaml.v3 rules, recording a problem with
// the value's position on failure. It reports whether the key was present and decoded.
func (c *Config) Decode(key string, out any) bool {
	if c.spec != nil {
		c.record(key, "any", nil)
		return false
	}
	v := c.Node(key)
	if v == nil {
		return false
	}
	if err := v.Decode(out); err != nil {
		c.probs.Errorf(c.PosOf(v), "%s: %s: %s", c.what, key, strings.TrimPrefix(err.Error(), "yaml: "))
		return false
	}
	return true
}

// Accept marks keys as known without reading them.
func (c *Config) Accept(keys ...string) {
	if c.spec != nil {
		for _, k := range keys {
			c.record(k, "any", nil)
		}
		return
	}
	for _, k := range keys {
		c.known[k] = true
	}
}

// Ignore marks keys that OrKa accepts but does nothing with: when present they load
// with a warning that names the key and says it has no effect. Under strict mode
// the warning is an error.
func (c *Config) Ignore(keys ...string) { c.IgnoreBecause("", keys...) }

// IgnoreBecause is [Config.Ignore] with the reason the keys have no effect
// ("without an embedder"), added to the warning.
func (c *Config) IgnoreBecause(reason string, keys ...string) {
	if c.spec != nil {
		c.recordIgnored(reason, keys)
		return
	}
	for _, k := range keys {
		c.known[k] = true
		if _, ok := c.vals[k]; !ok {
			continue
		}
		if reason == "" {
			c.Warnf(k, "%s is accepted for OrKa compatibility and ignored", k)
		} else {
			c.Warnf(k, "%s is accepted for OrKa compatibility and ignored: it has no effect %s", k, reason)
		}
	}
}

// IgnoreUnread is [Config.IgnoreBecause] for the keys no read method has asked
// for: a key an agent type gives meaning to is left alone.
func (c *Config) IgnoreUnread(reason string, keys ...string) {
	for _, k := range keys {
		if !c.known[k] {
			c.IgnoreBecause(reason, k)
		}
	}
}

// DoneLenient is [Config.Done] for a mapping whose extra keys OrKa passes on
// as keyword arguments and never reads (an LLM agent's params): a key no read
// method asked for loads with a warning, except one a small edit away from a
// known key, which is a typo and stays an error with did-you-mean.
func (c *Config) DoneLenient(reason string) {
	if c.spec != nil {
		c.spec.Open, c.spec.OpenReason = true, reason
	}
	for _, k := range c.order {
		if !c.known[k] && c.closest(k) == "" {
			c.IgnoreBecause(reason, k)
		}
	}
	c.Done()
}

// Done reports every key that no read method asked for as an unknown key, naming
// the closest known key when one is near.
// Calling it again does nothing.
func (c *Config) Done() {
	if c.done {
		return
	}
	c.done = true
	for _, k := range c.order {
		if c.known[k] {
			continue
		}
		msg := fmt.Sprintf("unknown key %q", k)
		if s := c.closest(k); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		} else if len(c.known) > 0 {
			msg += fmt.Sprintf(" (known keys: %s)", strings.Join(c.knownList(), ", "))
		}
		c.Errorf(k, "%s", msg)
	}
}

func (c *Config) knownList() []string {
	out := make([]string, 0, len(c.known))
	for k := range c.known {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (c *Config) closest(k string) string { return Closest(k, c.knownList()) }

// Keys returns the keys present, in file order.
func (c *Config) Keys() []string { return append([]string(nil), c.order...) }
