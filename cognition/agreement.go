package cognition

import (
	"context"
	"math"
	"reflect"
	"strings"

	"github.com/cogloop/cogloop/internal/embedding"
	"github.com/cogloop/cogloop/internal/values"
)

// Embedder turns a text into a vector for the agreement fallback (a nil or
// empty vector leaves that text out). It does I/O; cognition calls one only
// from [Scorer.ScoreContext], with the caller's context, once per text. It is
// the same interface as memory's (one definition, in internal/embedding), so
// one embedder serves both.
type Embedder = embedding.Embedder

// agreementFields are read, first non-empty wins, for an agent's text.
var agreementFields = [...]string{"response", "result", "output", "content", "answer"}

// agreement is step 5: the mean pairwise cosine similarity of the agents' texts,
// clamped to [0, 1]. Fewer than two texts or vectors score nothing.
func (r *scoreRun) agreement(ctx context.Context, emb Embedder) (Score, bool) {
	var texts []string
	for _, res := range r.results {
		if s, ok := res.Value.(string); ok {
			if strings.TrimSpace(s) != "" {
				texts = append(texts, s)
			}
			continue
		}
		m, ok := values.AsMap(res.Value)
		if !ok {
			continue
		}
		for _, f := range agreementFields {
			if v := m[f]; truthy(v) {
				texts = append(texts, textOf(v))
				break
			}
		}
	}
	if len(texts) < 2 {
		return Score{}, false
	}
	vecs := make([][]float64, 0, len(texts))
	for _, text := range texts {
		v, err := emb.Embed(ctx, text)
		if err != nil {
			r.warn(CodeAgreement, "agreement fallback: embed: %v", err)
			return Score{}, false
		}
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		vecs = append(vecs, f)
	}
	v, ok := meanCosine(vecs)
	if !ok {
		return Score{}, false
	}
	return Score{Value: clamp01(v), Strategy: StrategyAgreement}, true
}

// truthy is Python's truth value of a JSON-like value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case bool:
		return x
	}
	if f, ok := rawNumber(v); ok {
		return f != 0
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array:
		return rv.Len() > 0
	}
	return true
}

// meanCosine is the mean cosine similarity over all ordered pairs of distinct
// non-empty vectors of the same length as the first one. A zero vector has
// similarity 0 with everything.
func meanCosine(vecs [][]float64) (float64, bool) {
	var use [][]float64
	for _, v := range vecs {
		if len(v) == 0 || (len(use) > 0 && len(v) != len(use[0])) {
			continue
		}
		use = append(use, v)
	}
	if len(use) < 2 {
		return 0, false
	}
	norms := make([]float64, len(use))
	for i, v := range use {
		for _, x := range v {
			norms[i] += x * x
		}
		norms[i] = math.Sqrt(norms[i])
	}
	sum, pairs := 0.0, 0
	for i := range use {
		for j := i + 1; j < len(use); j++ {
			pairs++
			if norms[i] == 0 || norms[j] == 0 {
				continue
			}
			dot := 0.0
			for k := range use[i] {
				dot += use[i][k] * use[j][k]
			}
			sum += dot / (norms[i] * norms[j])
		}
	}
	mean := sum / float64(pairs)
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return 0, false
	}
	return mean, true
}
