package memories

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/prompt"
)

// ErrNoStore is the failure of a memory agent in a run without a memory store.
var ErrNoStore = errors.New("the run has no memory store (give one with cogloop.WithMemory; the CLI uses an in-memory store, or Redis with --redis)")

// Backend is the backend field of a reader's output.
const Backend = "memory store"

// Reader is OrKa's memory reader (type: memory, config.operation: read): it
// recalls the memories of its namespace that best match its rendered prompt.
type Reader struct {
	common
	limit      int
	threshold  float64
	halfLife   time.Duration
	filter     map[string]string
	search     string  // "keyword", "vector" or "hybrid"
	textWeight float64 // hybrid ranking's share of keyword overlap
}

// Writer is OrKa's memory writer (type: memory, config.operation: write): it
// stores its rendered prompt in its namespace.
type Writer struct {
	common
	key      *prompt.Template
	metadata []metaField
	ttl      time.Duration
	decay    decay
	now      func() time.Time
}

var (
	_ agents.Agent = (*Reader)(nil)
	_ agents.Agent = (*Writer)(nil)
)

// storeOf returns the run's store.
func storeOf(in agents.Input) (memory.Store, error) {
	if in.Run == nil || in.Run.Memory == nil {
		return nil, ErrNoStore
	}
	return in.Run.Memory, nil
}

// text renders the agent's prompt; without one it is the input text, as OrKa's
// memory nodes fall back to the input (inside a loop, the task text).
func (cm *common) text(in agents.Input) (string, error) { return in.RenderOrInput(cm.prompt) }

// Secrets returns the embedder's API keys ([agents.SecretUser]).
func (cm *common) Secrets() []secrets.Secret {
	if cm.embedder == nil {
		return nil
	}
	return cm.embedder.Secrets()
}

func (cm *common) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if cm.timeout > 0 {
		return context.WithTimeout(ctx, cm.timeout)
	}
	return context.WithCancel(ctx)
}

// embed returns text's embedding under the agent's retry policy.
func (cm *common) embed(ctx context.Context, in agents.Input, text string) ([]float32, error) {
	var vec []float32
	err := cm.retry.Do(ctx, in, cm.id, func(ctx context.Context, _ int) error {
		v, err := cm.embedder.Embed(ctx, text)
		vec = v
		return err
	})
	return vec, err
}

// Run recalls memories. The output's response is the recalled contents, best
// first, one per line ("" when nothing matched), so that
// get_agent_response(id) and {{ previous_outputs.<id>.response }} read as text
// in a prompt; the memories field holds them with their metadata and scores.
func (r *Reader) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	store, err := storeOf(in)
	if err != nil {
		return agents.Output{}, err
	}
	query, err := r.text(in)
	if err != nil {
		return agents.Output{}, err
	}
	out := agents.Output{Response: "", Fields: map[string]any{
		"memories": []any{}, "query": query, "num_results": 0,
		"backend": Backend, "search_type": r.search, "namespace": r.namespace,
	}}
	if r.prompt != nil {
		out.Prompt = query
	}
	if strings.TrimSpace(query) == "" {
		out.Fields["error"] = "No query provided"
		out.Shape, out.Order = readerShape(out.Fields), readerOrder
		return out, nil
	}
	ctx, cancel := r.bound(ctx)
	defer cancel()
	q := memory.Query{Text: query, Limit: r.limit, Threshold: r.threshold, Metadata: r.filter,
		HalfLife: r.halfLife, TextWeight: r.textWeight}
	if r.embedder != nil {
		if q.Vector, err = r.embed(ctx, in, query); err != nil {
			return agents.Output{}, fmt.Errorf("embed the query: %w", err)
		}
	}
	matches, err := store.Recall(ctx, r.namespace, q)
	if err != nil {
		return agents.Output{}, err
	}
	list := make([]any, len(matches))
	texts := make([]string, len(matches))
	for i, m := range matches {
		list[i] = matchMap(m)
		texts[i] = m.Memory.Content
	}
	out.Response = strings.Join(texts, "\n")
	out.Fields["memories"] = list
	out.Fields["num_results"] = len(matches)
	out.Shape, out.Order = readerShape(out.Fields), readerOrder
	return out, nil
}

// readerOrder is the key order templates see a memory reader in: OrKa's
// result (nodes/memory_reader_node.py; error after query where there is one).
var readerOrder = &pyvalue.Order{Keys: []string{"memories", "query", "error", "backend", "search_type", "num_results"}}

// readerShape is what templates see of a memory reader: OrKa's result
// {memories, query, backend, search_type, num_results} (and error), no
// response: get_agent_response gives the mapping's str(), as OrKa's does.
func readerShape(fields map[string]any) map[string]any {
	shape := make(map[string]any, 6)
	for _, k := range [...]string{"memories", "query", "backend", "search_type", "num_results", "error"} {
		if v, ok := fields[k]; ok {
			shape[k] = v
		}
	}
	return shape
}

// matchMap is one recalled memory as templates see it.
func matchMap(m memory.Match) map[string]any {
	meta := make(map[string]any, len(m.Memory.Metadata))
	for k, v := range m.Memory.Metadata {
		meta[k] = v
	}
	out := map[string]any{
		"id":         m.Memory.ID,
		"content":    m.Memory.Content,
		"metadata":   meta,
		"similarity": m.Similarity,
		"score":      m.Score,
		"created_at": m.Memory.CreatedAt.UTC().Format(time.RFC3339Nano),
	}
	if !m.Memory.ExpiresAt.IsZero() {
		out["expires_at"] = m.Memory.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	return out
}

// Run stores a memory: the rendered prompt (or the input text) as content,
// the rendered metadata, the id from key_template (else derived from content
// and metadata, so the same fact is kept once), and an expiry from ttl or
// decay.
func (w *Writer) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	store, err := storeOf(in)
	if err != nil {
		return agents.Output{}, err
	}
	now := w.now()
	in = w.bind(in, now)
	content, err := w.text(in)
	if err != nil {
		return agents.Output{}, err
	}
	if strings.TrimSpace(content) == "" {
		return agents.Output{}, errors.New("nothing to store: the content rendered empty")
	}
	m, err := w.memoryOf(in, content, now)
	if err != nil {
		return agents.Output{}, err
	}

	ctx, cancel := w.bound(ctx)
	defer cancel()
	if w.embedder != nil {
		if m.Vector, err = w.embed(ctx, in, content); err != nil {
			return agents.Output{}, fmt.Errorf("embed the content: %w", err)
		}
	}
	if err := store.Remember(ctx, w.namespace, m); err != nil {
		return agents.Output{}, err
	}
	fields := storedFields(m, w.namespace, content)
	out := agents.Output{Response: "stored " + m.ID, Fields: fields}
	if w.prompt != nil {
		out.Prompt = content
	}
	return out, nil
}

// memoryOf is the memory to store of content, rendered at now: its
// metadata (with OrKa's category and memory_type defaults), its id (from
// key_template, else derived as the store would, so the output can name
// it), and its expiry from ttl or decay.
func (w *Writer) memoryOf(in agents.Input, content string, now time.Time) (memory.Memory, error) {
	m := memory.Memory{Content: content, Metadata: make(map[string]string, len(w.metadata)+2)}
	for _, f := range w.metadata {
		v, err := f.render(in)
		if err != nil {
			return m, err
		}
		m.Metadata[f.key] = v
	}
	typ := w.decay.memoryType(m.Metadata["category"])
	if _, ok := m.Metadata["category"]; !ok {
		m.Metadata["category"] = "stored" // OrKa's writer default
	}
	if _, ok := m.Metadata["memory_type"]; !ok {
		m.Metadata["memory_type"] = typ
	}
	if w.key != nil {
		k, err := in.Render(w.key)
		if err != nil {
			return m, fmt.Errorf("render key_template: %w", err)
		}
		if k = strings.TrimSpace(k); k == "" {
			return m, errors.New("key_template rendered empty")
		}
		m.ID = memoryID(k)
	}
	// Derive the id here, as the store would, so the output can name it.
	prepared, err := memory.PrepareMemory(m, now, 0)
	if err != nil {
		return m, fmt.Errorf("memory %q: %w", m.ID, err)
	}
	m.ID = prepared.ID
	// Creation and expiry come from one clock, so a memory lives exactly its
	// lifetime.
	m.CreatedAt = now
	if life := w.ttl; life > 0 {
		m.ExpiresAt = now.Add(life)
	} else if life = w.decay.lifetime(typ); life > 0 {
		m.ExpiresAt = now.Add(life)
	}
	return m, nil
}

// storedFields are the output fields of stored memory m of content.
func storedFields(m memory.Memory, namespace, content string) map[string]any {
	meta := make(map[string]any, len(m.Metadata))
	for k, v := range m.Metadata {
		meta[k] = v
	}
	fields := map[string]any{
		"status":          "success",
		"memory_id":       m.ID,
		"memory_key":      m.ID,
		"namespace":       namespace,
		"content_length":  len(content),
		"stored_metadata": meta,
		"vector_enabled":  m.Vector != nil,
	}
	if !m.ExpiresAt.IsZero() {
		fields["expires_at"] = m.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	return fields
}

// OwnVars are the variables a writer binds for its own templates, as OrKa's
// memory writer does: timestamp (the moment it stores, ISO-8601; now() returns
// it too) and session_id (the run id).
func (w *Writer) OwnVars() []string { return []string{"timestamp", "session_id"} }

// bind adds OwnVars to in's variables (a value the run already binds wins).
func (w *Writer) bind(in agents.Input, now time.Time) agents.Input {
	vars := make(map[string]any, len(in.Vars)+2)
	vars["timestamp"] = now.UTC().Format(time.RFC3339Nano)
	session := ""
	if in.Run != nil {
		session = in.Run.ID
	}
	vars["session_id"] = session
	for k, v := range in.Vars {
		vars[k] = v
	}
	in.Vars = vars
	return in
}

func (f metaField) render(in agents.Input) (string, error) {
	vals := make([]string, 0, len(f.parts))
	for _, t := range f.parts {
		s, err := in.Render(t)
		if err != nil {
			return "", fmt.Errorf("render metadata %s: %w", f.key, err)
		}
		vals = append(vals, s)
	}
	return strings.Join(vals, ", "), nil
}
