package memories

import (
	"github.com/cogloop/cogloop/agents/load"
	"math"
	"strings"
	"time"
)

// OrKa's lifetimes when a decay block does not give them.
const (
	DefaultShortTerm = time.Hour
	DefaultLongTerm  = 24 * time.Hour
	// DefaultHalfLife is the reader's half-life with enable_temporal_ranking and
	// no decay, memory_preset or temporal_decay_hours (OrKa's
	// temporal_decay_hours default).
	DefaultHalfLife = 24 * time.Hour
)

// Memory types, the metadata value memory_type_filter selects on.
const (
	ShortTerm = "short_term"
	LongTerm  = "long_term"
)

// preset is the decay part of one of OrKa's memory presets.
type preset struct {
	name        string
	short, long float64 // hours
}

// presets are OrKa's memory_preset values with their decay hours
// (orka/memory/presets.py). Their read/write defaults are not applied.
var presets = []preset{
	{"sensory", 0.25, 1},
	{"working", 2, 8},
	{"episodic", 24, 168},
	{"semantic", 72, 2160},
	{"procedural", 168, 4320},
	{"meta", 48, 8760},
}

func presetNames() string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

// decay is what memory_preset and the decay block say about lifetimes.
type decay struct {
	enabled     bool
	shortTerm   time.Duration
	longTerm    time.Duration
	longDefault bool // default_long_term: every memory is long-term
}

// readDecay reads memory_preset and decay from c. A preset enables decay with
// its hours; a decay block is enabled unless it says enabled: false, and its
// keys override the preset's.
func readDecay(c *load.Config) decay {
	d := decay{shortTerm: DefaultShortTerm, longTerm: DefaultLongTerm}
	if c.Has("memory_preset") {
		name := strings.ToLower(strings.TrimSpace(c.String("memory_preset", "")))
		found := false
		for _, p := range presets {
			if p.name == name {
				d.enabled, d.shortTerm, d.longTerm, found = true, hours(p.short), hours(p.long), true
			}
		}
		if !found {
			c.Errorf("memory_preset", "unknown memory_preset %q (known: %s)", name, presetNames())
		}
	}
	dc := c.Map("decay")
	if dc == nil {
		return d
	}
	d.enabled = dc.Bool("enabled", true)
	// An agent's short_term_hours / long_term_hours win over the
	// default_* keys, as in OrKa's writer.
	d.shortTerm = readHours(dc, d.shortTerm, "short_term_hours", "default_short_term_hours")
	d.longTerm = readHours(dc, d.longTerm, "long_term_hours", "default_long_term_hours")
	d.longDefault = dc.Bool("default_long_term", false)
	dc.Ignore("check_interval_minutes", "memory_type_rules", "importance_rules")
	dc.Done()
	return d
}

// readHours reads the first of keys that is present as a positive number of
// hours; both keys become known.
func readHours(c *load.Config, def time.Duration, keys ...string) time.Duration {
	out, set := def, false
	for _, k := range keys {
		if !c.Has(k) {
			continue
		}
		if h, ok := positiveHours(c, k); ok && !set {
			out, set = h, true
		}
	}
	return out
}

// positiveHours reads key as a number of hours above zero.
func positiveHours(c *load.Config, key string) (time.Duration, bool) {
	const maxHours = 1_000_000
	h := c.Float(key, math.NaN(), -math.MaxFloat64, maxHours)
	if math.IsNaN(h) {
		return 0, false // absent, or a problem already recorded
	}
	if h <= 0 {
		c.Errorf(key, "%s must be more than 0 hours, not %g", key, h)
		return 0, false
	}
	return hours(h), true
}

func hours(h float64) time.Duration { return time.Duration(h * float64(time.Hour)) }

// halfLife is the reader's decay half-life with enable_temporal_ranking:
// temporal_decay_hours when given, else the long-term lifetime of an enabled
// decay (or preset), else [DefaultHalfLife].
func (d decay) halfLife(temporalHours time.Duration) time.Duration {
	switch {
	case temporalHours > 0:
		return temporalHours
	case d.enabled:
		return d.longTerm
	}
	return DefaultHalfLife
}

// memoryType classifies a memory as OrKa's writer does: long-term when decay
// says default_long_term, or when the memory's metadata explicitly says
// category: stored (OrKa gives those an importance of 0.7 or more).
func (d decay) memoryType(explicitCategory string) string {
	if d.longDefault || explicitCategory == "stored" {
		return LongTerm
	}
	return ShortTerm
}

// lifetime is how long a memory of type typ lives under an enabled decay;
// 0 means the store's default.
func (d decay) lifetime(typ string) time.Duration {
	if !d.enabled {
		return 0
	}
	if typ == LongTerm {
		return d.longTerm
	}
	return d.shortTerm
}
