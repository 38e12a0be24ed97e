package load

import (
	"math"

	"go.yaml.in/yaml/v3"
)

// Spec is what a loader read from a recording [Config]: every key it asked
// for, in the order asked, with its type, range and default. The JSON Schema of
// workflow files is derived from the specs the factories record, so the schema
// and the loader share one source of truth.
type Spec struct {
	Keys []*KeySpec
	// Open is set when the mapping takes keys beyond Keys ([Config.DoneLenient]);
	// OpenReason is why they have no effect.
	Open       bool
	OpenReason string
}

// KeySpec is one key of a [Spec].
type KeySpec struct {
	Name string
	// Kind is how the key was read: string, strings, int, float, bool,
	// duration, map, or any (read as a raw node or only tested for presence).
	Kind     string
	Min, Max *float64
	Default  any
	// Ignored marks keys accepted for OrKa compatibility and ignored; Reason
	// says why they have no effect.
	Ignored bool
	Reason  string
	// Map is the nested mapping's spec for Kind map.
	Map *Spec
}

// Key returns the key named name, or nil.
func (s *Spec) Key(name string) *KeySpec {
	for _, k := range s.Keys {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// NewRecording returns an empty Config in recording mode and the spec it
// fills. In recording mode every key is present: [Config.Has] reports true,
// [Config.Node] returns an empty mapping, [Config.Map] a nested recording
// Config, and typed reads return their default, so a factory run against it
// walks (nearly) every key it knows. Problems go to probs and mean nothing.
func NewRecording(what string, probs *Problems) (*Config, *Spec) {
	s := &Spec{}
	return newRecording(what, probs, s), s
}

func newRecording(what string, probs *Problems, s *Spec) *Config {
	return &Config{probs: probs, what: what, spec: s,
		keys: map[string]*yaml.Node{}, vals: map[string]*yaml.Node{}, known: map[string]bool{}}
}

// Recording reports whether c records a [Spec] instead of reading a file.
func (c *Config) Recording() bool { return c.spec != nil }

// record notes key as read with kind; a typed read refines an earlier "any".
func (c *Config) record(key, kind string, def any) *KeySpec {
	c.known[key] = true
	k := c.spec.Key(key)
	if k == nil {
		k = &KeySpec{Name: key, Kind: kind}
		c.spec.Keys = append(c.spec.Keys, k)
	} else if k.Kind == "any" || k.Ignored {
		k.Kind, k.Ignored, k.Reason = kind, false, ""
	}
	if k.Default == nil && def != nil && k.Kind == kind {
		k.Default = def
	}
	return k
}

func (k *KeySpec) rangeOf(min, max float64) {
	if k.Min != nil || k.Max != nil {
		return
	}
	if min > -math.MaxInt32 {
		k.Min = &min
	}
	if max < math.MaxInt32 {
		k.Max = &max
	}
}

// recordMap notes key as a mapping and returns a recording Config for it.
func (c *Config) recordMap(key string) *Config {
	k := c.record(key, "map", nil)
	if k.Kind != "map" {
		k.Kind = "map"
	}
	if k.Map == nil {
		k.Map = &Spec{}
	}
	return newRecording(c.what+": "+key, c.probs, k.Map)
}

// recordIgnored notes keys accepted and ignored, unless read for real.
func (c *Config) recordIgnored(reason string, keys []string) {
	for _, key := range keys {
		if c.spec.Key(key) != nil {
			c.known[key] = true
			continue
		}
		k := c.record(key, "any", nil)
		k.Ignored, k.Reason = true, reason
	}
}

func nilIfZero(s string) any {
	if s == "" {
		return nil
	}
	return s
}
