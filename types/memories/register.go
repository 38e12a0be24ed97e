package memories

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/types/llm"
)

// Defaults of the memory agent type.
const (
	// DefaultLimit is the reader's limit (OrKa's).
	DefaultLimit = memory.DefaultRecallLimit
	// DefaultKeywordThreshold is the reader's similarity_threshold without an
	// embedder: the share of the query's keywords a memory must contain.
	// OrKa's 0.6 is a cosine similarity; on the keyword scale it would drop
	// most memories a reader prompt with a few instruction words should find,
	// so the default asks for one query keyword in five and leaves the rest to
	// the ranking.
	DefaultKeywordThreshold = 0.2
	// DefaultVectorThreshold is the reader's similarity_threshold with an
	// embedder: OrKa's cosine threshold.
	DefaultVectorThreshold = 0.6
	// MaxKeyLen is the longest memory id a key_template may render; a longer
	// key is replaced by "sha256-" and the hex SHA-256 of the key, so the same
	// long key still names the same memory.
	MaxKeyLen = 256
)

// Options are what the memory type depends on. The zero value reads the
// process environment, uses llm.DefaultHTTPClient for embedders and time.Now.
type Options struct {
	// HTTPClient makes embedders' calls.
	HTTPClient *http.Client
	// Getenv reads embedders' API keys and OPENAI_BASE_URL.
	Getenv func(string) string
	// Now is the clock a writer's ttl and decay count from. Give it the
	// store's clock (memory.Options.Now) when that is not time.Now.
	Now func() time.Time
	// Sleep replaces the retry backoff's timer for embedding calls (tests).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Register adds the memory and rag agent types to r.
func Register(r *agents.Registry) { RegisterWith(r, Options{}) }

// RegisterWith is [Register] with explicit dependencies.
func RegisterWith(r *agents.Registry, o Options) {
	d := llm.Options{Getenv: o.Getenv, HTTPClient: o.HTTPClient}.WithDefaults()
	o.Getenv, o.HTTPClient = d.Getenv, d.HTTPClient
	if o.Now == nil {
		o.Now = time.Now
	}
	r.MustRegister("memory", o.factory)
	r.MustRegister("rag", o.ragFactory)
}

// Operations of config.operation.
const (
	Read  = "read"
	Write = "write"
)

// orkaIgnored are config keys of OrKa's memory nodes that cogloop loads and
// ignores (RedisStack HNSW tuning, context search, OrKa's logging).
var orkaIgnored = []string{"enable_context_search", "context_weight", "context_window_size",
	"temporal_weight", "ef_runtime", "use_hnsw", "hybrid_search_enabled", "disable_memory_logging"}

// readOnly and writeOnly are the keys that apply to one operation; on the
// other they load with a warning.
var (
	readOnlyConfig = []string{"limit", "similarity_threshold", "enable_temporal_ranking",
		"temporal_decay_hours", "memory_category_filter", "memory_type_filter"}
	writeOnly = []string{"key_template", "metadata", "ttl"}
)

// common is what readers and writers share.
type common struct {
	id        string
	namespace string
	prompt    *prompt.Template
	embedder  *llm.Embedder
	retry     retry.Retrier
	timeout   time.Duration
}

func (o Options) factory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	cfg := c.Map("config")
	if cfg == nil {
		cfg = load.NewConfig(c.File(), nil, c.What()+": config", c.Problems())
	}
	op := Read
	if cfg.Has("operation") {
		switch s := strings.ToLower(strings.TrimSpace(cfg.String("operation", Read))); s {
		case Read, Write:
			op = s
		default:
			cfg.Errorf("operation", "operation must be read or write, not %q", s)
		}
	}

	cm := common{id: c.String("id", "")}
	cm.namespace = readNamespace(c, cfg)
	cm.prompt = b.Template(c, "prompt")
	cm.embedder = o.readEmbedder(c)
	cm.timeout = c.Duration("timeout", llm.DefaultTimeout)
	cm.retry = retry.Retrier{Policy: retry.ReadPolicy(c, "retry", retry.DefaultLLM()), Sleep: o.Sleep}
	if cm.embedder != nil {
		cm.retry.Secrets = cm.embedder.Secrets()
	}
	d := readDecay(c)
	c.Ignore("queue")
	for _, vc := range []*load.Config{c, cfg} {
		if vc.Has("vector") && vc.Bool("vector", false) && cm.embedder == nil {
			vc.Warnf("vector", "vector: true needs an embedder ({provider, model, model_url}); memories are matched by keyword overlap")
		}
	}
	cfg.Ignore(orkaIgnored...)
	for _, ig := range orkaNoEffect {
		cfg.IgnoreBecause(ig.reason, ig.keys...)
	}

	var a agents.Agent
	if op == Read {
		a = o.reader(cm, c, cfg, d)
	} else {
		a = o.writer(b, cm, c, cfg, d)
	}
	cfg.Done()
	return a, nil
}

func notFor(c *load.Config, op string, keys []string) {
	for _, k := range keys {
		if c.Has(k) {
			c.Warnf(k, "%s does nothing with operation: %s; ignored", k, op)
		}
	}
}

func (o Options) reader(cm common, c, cfg *load.Config, d decay) *Reader {
	notFor(c, Read, writeOnly)
	r := &Reader{common: cm, search: "keyword"}
	r.limit = readLimit(cfg)
	def := DefaultKeywordThreshold
	if cm.embedder != nil {
		def, r.search = DefaultVectorThreshold, "vector"
	}
	r.textWeight = readHybrid(cfg, cm.embedder != nil)
	if r.textWeight > 0 {
		r.search = "hybrid"
	}
	r.threshold = cfg.Float("similarity_threshold", def, 0, 1)
	var temporalHours time.Duration
	if cfg.Has("temporal_decay_hours") {
		temporalHours, _ = positiveHours(cfg, "temporal_decay_hours")
	}
	if cfg.Bool("enable_temporal_ranking", false) {
		r.halfLife = d.halfLife(temporalHours)
	} else if temporalHours > 0 {
		cfg.Warnf("temporal_decay_hours", "temporal_decay_hours does nothing without enable_temporal_ranking: true")
	}
	if v := strings.TrimSpace(cfg.String("memory_category_filter", "")); v != "" {
		r.filter = map[string]string{"category": v}
	}
	if cfg.Has("memory_type_filter") {
		switch v := strings.ToLower(strings.TrimSpace(cfg.String("memory_type_filter", ""))); v {
		case "", "all":
		case ShortTerm, LongTerm:
			if r.filter == nil {
				r.filter = map[string]string{}
			}
			r.filter["memory_type"] = v
		default:
			cfg.Errorf("memory_type_filter", "memory_type_filter must be all, %s or %s, not %q", ShortTerm, LongTerm, v)
		}
	}
	return r
}

func (o Options) writer(b *agents.Builder, cm common, c, cfg *load.Config, d decay) *Writer {
	notFor(cfg, Write, readOnlyConfig)
	notFor(cfg, Write, readOnlyOrKa)
	w := &Writer{common: cm, decay: d, now: o.Now}
	w.key = b.Template(c, "key_template")
	if c.Has("ttl") {
		switch w.ttl = c.Duration("ttl", -1); w.ttl {
		case -1: // a problem already recorded
			w.ttl = 0
		case 0:
			c.Errorf("ttl", "ttl must be more than 0 (leave it out for memories that do not expire)")
		}
	}
	if mc := c.Map("metadata"); mc != nil {
		for _, k := range mc.Keys() {
			w.metadata = append(w.metadata, readField(b, mc, k))
		}
		mc.Done()
	}
	return w
}

// metaField is one metadata entry: a template, or a list of templates whose
// renderings are joined with ", " (OrKa's tags).
type metaField struct {
	key   string
	parts []*prompt.Template
}

func readField(b *agents.Builder, mc *load.Config, key string) metaField {
	f := metaField{key: key}
	n := mc.Node(key)
	if n == nil || n.Kind != yaml.SequenceNode {
		if t := b.Template(mc, key); t != nil {
			f.parts = []*prompt.Template{t}
		}
		return f
	}
	// Each item is parsed through the builder as a key of a synthetic mapping
	// whose value nodes are the items themselves, so positions stay right.
	m := &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
	item := func(i int) string { return key + "[" + strconv.Itoa(i) + "]" }
	for i, it := range n.Content {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: item(i), Line: it.Line, Column: it.Column}, it)
	}
	ic := load.NewConfig(mc.File(), m, mc.What(), mc.Problems())
	for i := range n.Content {
		if t := b.Template(ic, item(i)); t != nil {
			f.parts = append(f.parts, t)
		}
	}
	return f
}

func (o Options) readEmbedder(c *load.Config) *llm.Embedder {
	ec := c.Map("embedder")
	if ec == nil {
		return nil
	}
	defer ec.Done()
	mc := llm.Config{HTTPClient: o.HTTPClient, Getenv: o.Getenv}
	if !ec.Has("provider") {
		ec.Errorf("", "provider is required (openai, openai_compatible, lm_studio, ollama or googleai)")
	} else {
		p, err := llm.ParseProvider(ec.String("provider", ""))
		if err != nil {
			ec.Errorf("provider", "%v", err)
		}
		mc.Provider = p
	}
	mc.Model = ec.String("model", "")
	mc.URL = ec.String("model_url", "")
	if ec.Has("api_key") {
		mc.APIKey = secrets.NewNamed("api_key", ec.String("api_key", ""))
		ec.Warnf("api_key", "an API key in a workflow file is a secret in plain text; prefer the environment, or name a variable with api_key_env")
	}
	mc.APIKeyEnv = strings.TrimSpace(ec.String("api_key_env", ""))
	switch {
	case mc.Provider == "":
		return nil
	case mc.Provider == llm.Anthropic:
		ec.Errorf("provider", "provider %s has no embeddings API (use openai, openai_compatible, lm_studio, ollama or googleai)", mc.Provider)
		return nil
	case strings.TrimSpace(mc.Model) == "" && mc.Provider != llm.OpenAI:
		ec.Errorf("", "model is required for provider %s (the embedding model, e.g. nomic-embed-text)", mc.Provider)
		return nil
	}
	e, err := llm.NewEmbedder(mc)
	if err != nil {
		key := "provider"
		if mc.URL != "" {
			key = "model_url"
		}
		ec.Errorf(key, "%v", err)
		return nil
	}
	return e
}

// memoryID turns a rendered key_template into a memory id.
func memoryID(key string) string {
	if len(key) <= MaxKeyLen {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256-" + hex.EncodeToString(sum[:])
}
