package memories

import (
	"strings"

	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/memory"
)

// orkaNoEffect are config keys OrKa's memory nodes accept and never read (or
// read for RedisStack's index only), with the reason each has no effect here.
var orkaNoEffect = []struct {
	reason string
	keys   []string
}{
	{"(RedisStack index settings; cogloop's stores index memories themselves)",
		[]string{"force_recreate_index", "vector_field", "vector_field_name", "vector_params", "search_field", "embed_field"}},
	{"(memories are matched by vector when an embedder is set, by keyword otherwise)",
		[]string{"enable_vector_search", "fallback_to_text"}},
	{"(the memory type comes from the decay rules or metadata.memory_type)", []string{"memory_type"}},
	{"(set metadata.category on the agent)", []string{"category"}},
	{"here (metadata and key_template belong at the agent's top level, beside config)", []string{"metadata", "key_template"}},
	{"", []string{"search_params", "store_params", "store_metadata", "query_key"}},
}

// readOnlyOrKa are OrKa's reader keys cogloop gives meaning to; on a writer
// they load with a warning.
var readOnlyOrKa = []string{"top_k", "enable_hybrid_search", "text_weight", "vector_weight"}

// readNamespace reads namespace: at the agent's top level, else config.namespace
// (OrKa takes either), else the default namespace.
func readNamespace(c, cfg *load.Config) string {
	src := c
	if !c.Has("namespace") && cfg.Has("namespace") {
		src = cfg
	} else if cfg.Has("namespace") {
		top, inner := strings.TrimSpace(c.String("namespace", "")), strings.TrimSpace(cfg.String("namespace", ""))
		if top != inner {
			cfg.Warnf("namespace", "namespace %q is overridden by the top-level namespace %q (give one of them)", inner, top)
		}
	}
	ns := strings.TrimSpace(src.String("namespace", memory.DefaultNamespace))
	if ns == "" {
		src.Errorf("namespace", "namespace must not be empty")
		return memory.DefaultNamespace
	}
	return ns
}

// readLimit reads limit, or top_k (OrKa's examples' name for it).
func readLimit(cfg *load.Config) int {
	if cfg.Has("top_k") {
		if cfg.Has("limit") {
			cfg.Errorf("top_k", "top_k is another name for limit: give one of them")
			return cfg.Int("limit", DefaultLimit, 1, 1000)
		}
		return cfg.Int("top_k", DefaultLimit, 1, 1000)
	}
	return cfg.Int("limit", DefaultLimit, 1, 1000)
}

// DefaultTextWeight is hybrid ranking's share of keyword overlap when
// enable_hybrid_search is on without weights (OrKa's semantic preset: 0.3
// text, 0.7 vector).
const DefaultTextWeight = 0.3

// readHybrid reads OrKa's hybrid search keys (enable_hybrid_search,
// text_weight, vector_weight) into the share of keyword overlap in a vector
// match's similarity; 0 means pure vector similarity. Hybrid ranking is on
// when enable_hybrid_search is true or a weight is given (and
// enable_hybrid_search is not false). Without an embedder there is no
// vector to mix in: the keys load with a warning.
func readHybrid(cfg *load.Config, embedder bool) float64 {
	keys := []string{"enable_hybrid_search", "text_weight", "vector_weight"}
	tw := cfg.Float("text_weight", -1, 0, 1e6)
	vw := cfg.Float("vector_weight", -1, 0, 1e6)
	on := cfg.Bool("enable_hybrid_search", tw >= 0 || vw >= 0)
	if !embedder {
		for _, k := range keys {
			if cfg.Has(k) {
				cfg.Warnf(k, "%s is accepted for OrKa compatibility and ignored: it has no effect without an embedder (memories are matched by keyword overlap)", k)
			}
		}
		return 0
	}
	if !on {
		for _, k := range keys[1:] {
			if cfg.Has(k) {
				cfg.Warnf(k, "%s has no effect with enable_hybrid_search: false", k)
			}
		}
		return 0
	}
	switch {
	case tw < 0 && vw < 0:
		return DefaultTextWeight
	case tw < 0:
		tw = max(0, 1-vw)
	case vw < 0:
		vw = max(0, 1-tw)
	}
	if tw+vw == 0 {
		cfg.Errorf("text_weight", "text_weight and vector_weight are both 0: give one of them a positive weight")
		return 0
	}
	w := tw / (tw + vw)
	if w == 0 {
		return 0
	}
	return w
}
