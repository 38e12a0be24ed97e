package memories

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/types/llm"
)

// Defaults of the rag type (OrKa's RAGNode).
const (
	DefaultRAGTopK = 5
	// DefaultRAGThreshold is score_threshold with an embedder (OrKa's cosine
	// threshold); without one it is [DefaultKeywordThreshold].
	DefaultRAGThreshold = 0.7
	DefaultRAGTimeout   = 30 * time.Second
	// DefaultRAGModel is the model OrKa's rag node asks.
	DefaultRAGModel = "gpt-3.5-turbo"
	// NoRAGSources is the answer when nothing is retrieved; no model is asked.
	NoRAGSources = "I couldn't find any relevant information to answer your question."
)

// The answer prompt: the retrieved passages and the question reach it as the
// template variables rag_context and rag_question (data, never rendered).
const (
	ragSystem = "You are a helpful assistant that answers questions based on the provided context."
	ragPrompt = `Based on the following context, answer the question. If the context doesn't contain relevant information, say so.

Context:
{{ rag_context }}
Question: {{ rag_question }}

Answer:`
)

// RAG is OrKa's rag node: it retrieves the memories of its namespace that
// best match its rendered prompt (keyword overlap, or vectors with an
// embedder) and asks a model to answer the prompt from them. Its response is
// the answer; result is OrKa's {answer, sources}, sources the passages with
// content, score and metadata.
type RAG struct {
	common
	topK      int
	threshold float64
	search    string
	answer    *llm.Agent
}

var _ agents.Agent = (*RAG)(nil)

// Run retrieves, then answers.
func (r *RAG) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	store, err := storeOf(in)
	if err != nil {
		return agents.Output{}, retry.Permanent(err)
	}
	query, err := r.text(in)
	if err != nil {
		return agents.Output{}, err
	}
	if strings.TrimSpace(query) == "" {
		return agents.Output{Prompt: query}, retry.Permanent(errors.New("the query is empty: the rendered prompt (or the input) has no text to retrieve for"))
	}
	matches, err := r.retrieve(ctx, in, store, query)
	if err != nil {
		return agents.Output{Prompt: query}, err
	}
	sources := make([]any, len(matches))
	var passages strings.Builder
	for i, m := range matches {
		meta := map[string]any{}
		for k, v := range m.Memory.Metadata {
			meta[k] = v
		}
		sources[i] = map[string]any{"content": m.Memory.Content, "score": m.Score, "metadata": meta, "id": m.Memory.ID}
		fmt.Fprintf(&passages, "Source %d:\n%s\n\n", i+1, m.Memory.Content)
	}
	out := agents.Output{Prompt: query, Response: NoRAGSources}
	if len(matches) > 0 {
		ain := in
		ain.Vars = maps.Clone(in.Vars)
		if ain.Vars == nil {
			ain.Vars = map[string]any{}
		}
		ain.Vars["rag_context"] = passages.String()
		ain.Vars["rag_question"] = query
		ao, err := r.answer.Run(ctx, ain)
		out.Usage = ao.Usage
		if ao.Prompt != "" {
			out.Prompt = ao.Prompt
		}
		if err != nil {
			return out, fmt.Errorf("answer from %d retrieved passages: %w", len(matches), err)
		}
		out.Response = ao.Text()
	}
	out.Fields = map[string]any{
		"result": map[string]any{"answer": out.Response, "sources": sources},
		"answer": out.Response, "sources": sources, "query": query, "num_results": len(matches),
		"namespace": r.namespace, "search_type": r.search,
	}
	return out, nil
}

func (r *RAG) retrieve(ctx context.Context, in agents.Input, store memory.Store, query string) ([]memory.Match, error) {
	ctx, cancel := r.bound(ctx)
	defer cancel()
	q := memory.Query{Text: query, Limit: r.topK, Threshold: r.threshold}
	if r.embedder != nil {
		v, err := r.embed(ctx, in, query)
		if err != nil {
			return nil, fmt.Errorf("embed the query: %w", err)
		}
		q.Vector = v
	}
	ms, err := store.Recall(ctx, r.namespace, q)
	if err != nil {
		return nil, fmt.Errorf("retrieve from namespace %q: %w", r.namespace, err)
	}
	return ms, nil
}

// Secrets returns the embedder's and the model's API keys.
func (r *RAG) Secrets() []secrets.Secret {
	return append(r.common.Secrets(), r.answer.Secrets()...)
}

func (o Options) ragFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	r := &RAG{common: common{id: c.String("id", "")}, search: "keyword"}
	r.namespace = readNamespace(c, load.NewConfig(c.File(), nil, c.What(), c.Problems()))
	r.prompt = b.Template(c, "prompt")
	r.embedder = o.readEmbedder(c)
	r.retry = retry.Retrier{Policy: retry.ReadPolicy(c, "retry", retry.DefaultLLM()), Sleep: o.Sleep}
	def := DefaultKeywordThreshold
	if r.embedder != nil {
		r.retry.Secrets = r.embedder.Secrets()
		def, r.search = DefaultRAGThreshold, "vector"
	}
	r.topK = c.Int("top_k", DefaultRAGTopK, 1, 1000)
	r.threshold = c.Float("score_threshold", def, 0, 1)

	tmpl, err := prompt.Parse("rag answer", ragPrompt, prompt.Options{})
	if err != nil {
		return nil, err
	}
	sys, err := prompt.Parse("rag system", ragSystem, prompt.Options{})
	if err != nil {
		return nil, err
	}
	lo := llm.Options{Getenv: o.Getenv, HTTPClient: o.HTTPClient, Sleep: o.Sleep}
	mc := c
	if lc := c.Map("llm_config"); lc != nil {
		defer lc.Done()
		if c.Recording() {
			// Both places take the model keys: record them in both.
			lo.Answerer(lc, r.id, tmpl, sys, llm.OpenAI, DefaultRAGModel)
		} else {
			mc = lc
		}
	}
	r.answer = lo.Answerer(mc, r.id, tmpl, sys, llm.OpenAI, DefaultRAGModel)
	r.timeout = c.Duration("timeout", DefaultRAGTimeout)
	if !mc.Has("timeout") {
		r.answer.Timeout = r.timeout
	}
	c.IgnoreBecause("(cogloop does not limit how many runs of one agent overlap)", "max_concurrency")
	if mc != c {
		c.Ignore("queue") // the answerer ignores it on c otherwise
	}
	return r, nil
}
